import { Type } from 'typebox';
import { Strict, Time } from '../../schemas.ts';
import { SERVICE_ACTIONS, type ServiceAction } from './roles.ts';

export const ServiceName = Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be 1 to 100 characters' });
export const Service = Type.Object({ id: Type.String(), identifier: Type.String(), name: Type.String(), createdAt: Time });
export const CreateServiceBody = Strict({
  name: ServiceName,
  identifier: Type.Optional(Type.String({ maxLength: 48 })),
});
export const RenameServiceBody = Strict({ name: ServiceName });
export const ApiKey = Type.Object({ apiKey: Type.String() });
export const Permissions = Type.Object({
  allowUrlShortener: Type.Boolean(),
  allowManageKeys: Type.Boolean(),
  allowVss: Type.Boolean(),
});
export const PermissionsPatch = Strict({
  allowUrlShortener: Type.Optional(Type.Boolean()),
  allowManageKeys: Type.Optional(Type.Boolean()),
  allowVss: Type.Optional(Type.Boolean()),
});
export const MAX_ALLOWLIST_ENTRIES = 100;
export const Allowlist = Type.Object({ entries: Type.Array(Type.String()) });
export const AllowlistBody = Strict({
  entries: Type.Array(Type.String({ maxLength: 18 }), { maxItems: MAX_ALLOWLIST_ENTRIES }),
});

/** Contract §17: the caller's role on the service. */
export const ServiceRole = Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('support'), Type.Literal('reseller')]);
/** `actions`: what the role may do (contract §17's table), so the dashboard shows only those sections. */
/** One of contract §17's actions, named by the role table itself (so the dashboard's type follows it). */
const ServiceActionName = Type.Unsafe<ServiceAction>({ type: 'string', enum: [...SERVICE_ACTIONS] });
export const ServiceWithRole = Type.Object({ ...Service.properties, role: ServiceRole, actions: Type.Array(ServiceActionName) });
export const ServiceList = Type.Object({ services: Type.Array(ServiceWithRole) });
