// Registers scripts/ts-loader.mjs: `node --import ./scripts/register-ts.mjs file.ts`.
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
