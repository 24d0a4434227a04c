import type { PortalSpec } from '../forms/spec';
import type { PortalId } from '../hosts';
import { POWER } from './power/spec';
import { SHOPS } from './shops/spec';
import { TAX } from './tax/spec';

/** Every lab portal, by id. */
export const PORTALS: Readonly<Record<PortalId, PortalSpec>> = { shops: SHOPS, power: POWER, tax: TAX };
