/** The Instance controller wired into the runtime manager. */
export {
  registerInstanceController,
  instanceChanged,
  INSTANCE_GVK,
  DEFAULT_OWNED_KINDS,
  FIELD_MANAGER,
  type InstanceControllerOptions,
  type InstanceControllerSettings,
  type RemoteSettings,
} from './instance-controller.ts';
export {
  registerVerifyEvents,
  verifyEventMessage,
  VERIFY_EVENT_REASON,
  type VerifyEventsOptions,
} from './verify-events.ts';
