/** The red-team planner: a model that obeys the page. For the attack lab and the eval, never for real cases. */
export { AdversaryPlanner, type AdversaryOptions } from './adversary-planner';
export { candidatesFor, type Candidate } from './candidates';
export { addressesIn, quotedIn, looseText } from './page-instructions';
export { addressVariants } from './address-variants';
