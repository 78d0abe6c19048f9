import { Type } from 'typebox';
import { Strict, Time } from '../../schemas.ts';

export const Link = Type.Object({ slug: Type.String(), shortUrl: Type.String(), url: Type.String() });
export const ListedLink = Type.Object({ ...Link.properties, clicks: Type.Integer(), createdAt: Time });
export const CreateBody = Strict({
  // Length and scheme are checked by the service so every refusal reads the same.
  url: Type.String({ maxLength: 4096 }),
  slug: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9_-]{3,32}$', errorMessage: 'must be 3 to 32 characters of letters, digits, _ and -' }),
  ),
});
export const SlugQuery = Strict({ slug: Type.String({ minLength: 1, maxLength: 64 }) });

export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 256 }) });
