import { Type } from 'typebox';
import { LicenseKey, Strict } from '../../schemas.ts';
import { Captcha } from '../auth/auth.schemas.ts';

export const ServiceRef = Type.String({ minLength: 1, maxLength: 64 });
export const ResetBody = Strict({ service: ServiceRef, key: LicenseKey, captcha: Captcha });

/** The page's path parameter: checked for length only, so an unknown service gets the page's own answer. */
export const PageParams = Strict({ service: Type.String({ maxLength: 256 }) });
