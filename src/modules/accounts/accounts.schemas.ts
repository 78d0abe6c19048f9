import { Type } from 'typebox';

export const ApiKey = Type.Object({ apiKey: Type.String() });
