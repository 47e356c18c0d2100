/** Reading KUDO package folders into Operator / OperatorVersion objects. */
export {
  loadPackage,
  operatorVersionName,
  PackageError,
  type KudoPackage,
  type LoadOptions,
} from './load.ts';
