import { Type } from 'typebox';
import { Hwid, Strict, Time, TimeInput } from '../../schemas.ts';

export const Entry = Type.Object({ hwid: Type.String(), isPremium: Type.Boolean(), expiresAt: Time, createdAt: Time });
export const HwidQuery = Strict({ hwid: Hwid });
export const AddBody = Strict({ hwid: Hwid, isPremium: Type.Optional(Type.Boolean()), expiresAt: Type.Optional(TimeInput) });
