import { Type } from 'typebox';
import { NullableString } from '../../schemas.ts';

/** The key-system page of a script's service, or null while its key system is off. */
export const KeySystemLink = Type.Object({ link: NullableString });
