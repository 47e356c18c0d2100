/** `kudo.dev/dependencies-hash` on pod templates: digests, sources, go-yaml v2 serialisation. */
export * from './hash.ts';
export * from './resolve.ts';
export { goYamlMarshal, goYamlKeyLess, type GoYamlValue } from '../../../gotemplate/index.ts';
