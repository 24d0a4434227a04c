/**
 * The design-system lab portal family (issue 30): three portals built from published design
 * systems' own components, served offline from the packages in node_modules (their JavaScript and
 * CSS, not imitations). Each portal is a host of one loopback server.
 */

export const DS_PORTALS = ['uswds', 'govuk', 'moj'] as const;
export type DsPortal = (typeof DS_PORTALS)[number];

export const DS_HOSTS: Record<DsPortal, string> = {
  uswds: 'benefits.uswds.example',
  govuk: 'visas.govuk.example',
  moj: 'courts.moj.example',
};

/** The application number each portal issues. */
export const DS_NUMBER_PATTERNS: Record<DsPortal, string> = {
  uswds: 'USA-\\d{6}',
  govuk: 'GOV-\\d{6}',
  moj: 'MOJ-\\d{6}',
};

/** The states the USWDS combo box lists (value: postal code). */
export const STATES: Record<string, string> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', CA: 'California', CO: 'Colorado', FL: 'Florida', GA: 'Georgia', IL: 'Illinois',
  MA: 'Massachusetts', MI: 'Michigan', NY: 'New York', NC: 'North Carolina', OH: 'Ohio', OR: 'Oregon', PA: 'Pennsylvania',
  TX: 'Texas', VA: 'Virginia', WA: 'Washington',
};

/** The nationalities the GOV.UK autocomplete lists (accessible-autocomplete over a select). */
export const COUNTRIES = [
  'Afghanistan', 'Australia', 'Bangladesh', 'Brazil', 'Canada', 'China', 'France', 'Germany', 'Ghana', 'India', 'Indonesia',
  'Ireland', 'Italy', 'Jamaica', 'Japan', 'Kenya', 'Nepal', 'New Zealand', 'Nigeria', 'Pakistan', 'Philippines', 'Poland',
  'Portugal', 'South Africa', 'Spain', 'Sri Lanka', 'United States',
];

/** What the GOV.UK postcode look-up knows: the addresses at each postcode, as lines. */
export const ADDRESS_BOOK: Record<string, string[][]> = {
  'SW1A 1AA': [['2 Palace Street', 'London', 'SW1A 1AA'], ['4 Palace Street', 'London', 'SW1A 1AA']],
  'M1 1AE': [['4 Piccadilly Gardens', 'Manchester', 'M1 1AE'], ['6 Piccadilly Gardens', 'Manchester', 'M1 1AE'], ['8 Piccadilly Gardens', 'Manchester', 'M1 1AE']],
  'EH1 1YZ': [['21 Royal Mile', 'Edinburgh', 'EH1 1YZ'], ['23 Royal Mile', 'Edinburgh', 'EH1 1YZ']],
};

/** One submission as the portal received it: every field as sent, by the portal's own field names. */
export interface DsSubmission {
  portal: DsPortal;
  applicationNumber: string;
  fields: Record<string, string>;
  /** Uploaded files by field: name, size and sha256. */
  files: Record<string, { file: string; bytes: number; sha256: string }>;
}
