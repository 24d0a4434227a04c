/**
 * The trade-permits lab portal (the fourth lab portal): its hosts, its lists and what one
 * application holds. The portal is built from the widgets real portals use and the first three
 * lab portals do not (see README.md beside this file).
 */

export const PERMITS_HOST = 'permits.portal.example';
/** The address finder, a second host of the same portal, shown in a frame. */
export const ADDRESSES_HOST = 'addresses.portal.example';

export const DISTRICTS = ['Pune', 'Pimpri-Chinchwad', 'Nashik', 'Nagpur', 'Satara', 'Solapur', 'Kolhapur', 'Sangli', 'Thane', 'Palghar', 'Raigad', 'Ratnagiri'];
export const WARDS = ['Ward 11 - Aundh', 'Ward 12 - Kothrud', 'Ward 13 - Baner', 'Ward 14 - Hadapsar', 'Ward 15 - Yerawada', 'Ward 16 - Kasba Peth', 'Ward 17 - Bibwewadi', 'Ward 18 - Wakad'];
export const DOCUMENT_SLOTS = [
  { key: 'identity_proof', label: 'Identity proof', required: true },
  { key: 'address_proof', label: 'Address proof', required: true },
  { key: 'shop_photograph', label: 'Shop photograph', required: false },
] as const;
export type DocumentKey = (typeof DOCUMENT_SLOTS)[number]['key'];

/** What the portal keeps of one application, as it received it. */
export interface PermitApplication {
  applicant_name: string;
  /** Reassembled from the Day, Month and Year boxes, YYYY-MM-DD. */
  date_of_birth: string;
  /** From the calendar box (DD/MM/YYYY), kept as YYYY-MM-DD. */
  trading_since: string;
  /** Ten digits, no country code. */
  mobile_number: string;
  district: string;
  ward: string;
  shop_address_line_1: string;
  shop_pin_code: string;
  nearest_landmark: string;
  home_delivery: boolean;
  outdoor_seating: boolean;
  /** sha256 and file name of each attached document. */
  documents: Partial<Record<DocumentKey, { file: string; sha256: string; bytes: number }>>;
  declaration: boolean;
}

export function blankApplication(): PermitApplication {
  return {
    applicant_name: '',
    date_of_birth: '',
    trading_since: '',
    mobile_number: '',
    district: '',
    ward: '',
    shop_address_line_1: '',
    shop_pin_code: '',
    nearest_landmark: '',
    home_delivery: false,
    outdoor_seating: false,
    documents: {},
    declaration: false,
  };
}

export const DECLARATION = 'I declare that the details and documents given are true and complete';
export const NUMBER_PATTERN = 'PRM-\\d{4}-\\d{6}';
