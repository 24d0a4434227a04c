import { notInFuture, PAN, PINCODE } from '../../forms/checks';
import type { FieldSpec, FieldValues, PortalSpec } from '../../forms/spec';

/** Commercial Taxes: an employer's monthly professional-tax return. */

export const RETURN_PERIODS = [
  'April 2026',
  'May 2026',
  'June 2026',
  'July 2026',
  'August 2026',
  'September 2026',
  'October 2026',
  'November 2026',
  'December 2026',
  'January 2027',
  'February 2027',
  'March 2027',
] as const;

/** Tax due for the month: ₹175 and ₹200 a head (₹300 in February for the upper slab). */
export function professionalTaxDue(fields: FieldValues): number {
  const count = (key: string) => Number(fields[key] ?? 0) || 0;
  const february = String(fields.return_period ?? '').startsWith('February');
  return count('employees_taxed_at_175') * 175 + count('employees_taxed_at_200') * (february ? 300 : 200);
}

function taxMatchesSlabs(value: string, fields: FieldValues): string | null {
  const due = professionalTaxDue(fields);
  return Number(value) === due ? null : `Tax payable must equal the tax on the employee slabs (₹${due})`;
}

const count = (key: string, label: string, label2: string): FieldSpec => ({ key, kind: 'count', label, label2, required: true });

const fields: readonly FieldSpec[] = [
  {
    key: 'ptrc_number',
    kind: 'text',
    label: 'PTRC number',
    label2: 'Registration certificate no.',
    required: true,
    hint: 'Professional Tax Registration Certificate: 11 digits followed by P',
    format: { pattern: /^\d{11}P$/, message: 'Enter the PTRC number as 11 digits followed by P, like 27551234567P' },
  },
  { key: 'employer_name', kind: 'text', label: 'Employer name', label2: 'Name of employer', required: true, maxLength: 100 },
  { key: 'employer_pan', kind: 'text', label: 'Employer PAN', label2: 'PAN', required: true, format: PAN },
  {
    key: 'gstin',
    kind: 'text',
    label: 'GSTIN',
    label2: 'GST number',
    hint: 'Leave blank if the employer is not registered for GST',
    format: { pattern: /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/, message: 'Enter a GSTIN in the correct format, like 27ABCDE1234F1Z5' },
  },
  { key: 'return_period', kind: 'select', label: 'Return period', label2: 'Month', required: true, options: RETURN_PERIODS },
  { key: 'return_type', kind: 'radio', label: 'Return type', label2: 'Filing type', required: true, options: ['Original', 'Revised'] },
  { key: 'establishment_address_line_1', kind: 'text', label: 'Establishment address line 1', label2: 'Office address line 1', required: true, maxLength: 100 },
  { key: 'establishment_address_line_2', kind: 'text', label: 'Establishment address line 2', label2: 'Office address line 2', maxLength: 100 },
  { key: 'establishment_city', kind: 'text', label: 'Establishment city', label2: 'Office town or city', required: true, maxLength: 50 },
  { key: 'establishment_pincode', kind: 'text', label: 'Establishment pincode', label2: 'Office PIN code', required: true, format: PINCODE },
  {
    key: 'communication_same_as_establishment',
    kind: 'checkbox',
    label: 'Same as establishment address',
    label2: 'Use the office address for letters',
  },
  { key: 'communication_address_line_1', kind: 'text', label: 'Communication address line 1', label2: 'Letters address line 1', required: true, maxLength: 100 },
  { key: 'communication_address_line_2', kind: 'text', label: 'Communication address line 2', label2: 'Letters address line 2', maxLength: 100 },
  { key: 'communication_city', kind: 'text', label: 'Communication city', label2: 'Letters town or city', required: true, maxLength: 50 },
  { key: 'communication_pincode', kind: 'text', label: 'Communication pincode', label2: 'Letters PIN code', required: true, format: PINCODE },
  count('employees_not_liable', 'Employees not liable', 'Not liable'),
  count('employees_taxed_at_175', 'Employees taxed at 175', 'At 175'),
  count('employees_taxed_at_200', 'Employees taxed at 200', 'At 200'),
  { key: 'tax_payable', kind: 'amount', label: 'Tax payable', label2: 'Total tax (Rs)', required: true, check: taxMatchesSlabs },
  { key: 'interest_amount', kind: 'amount', label: 'Interest amount', label2: 'Interest, if paid late', unlinkedLabel2: true },
  { key: 'payment_mode', kind: 'radio', label: 'Payment mode', label2: 'Paid through', required: true, options: ['Net banking', 'UPI', 'Challan at bank'] },
  { key: 'payment_date', kind: 'date', label: 'Payment date', label2: 'Date paid', required: true, check: notInFuture('Payment date') },
  {
    key: 'challan_number',
    kind: 'text',
    label: 'Challan number',
    label2: 'CIN or UTR',
    required: true,
    format: { pattern: /^[A-Z0-9]{10,22}$/, message: 'Enter the challan number (CIN or UTR) as 10 to 22 capital letters and digits' },
  },
  { key: 'signatory_name', kind: 'text', label: 'Signatory name', label2: 'Authorised person', required: true, maxLength: 80 },
  {
    key: 'signatory_designation',
    kind: 'select',
    label: 'Signatory designation',
    label2: 'Designation',
    required: true,
    options: ['Proprietor', 'Partner', 'Director', 'Manager', 'Accountant'],
  },
  {
    key: 'declaration_accepted',
    kind: 'declaration',
    label: 'I certify that the particulars given in this return are true and complete',
    label2: 'I confirm the details above are true and complete',
  },
];

export const TAX: PortalSpec = {
  id: 'tax',
  task: 'professional-tax-return',
  department: 'Commercial Taxes Department',
  service: 'Professional Tax: Monthly Return (Form III)',
  numberPrefix: 'PTX',
  fields,
  sections: {
    original: [
      {
        slug: 'employer',
        title: 'Employer details',
        items: ['ptrc_number', 'employer_name', 'employer_pan', 'gstin', 'return_period', 'return_type'],
      },
      {
        slug: 'address',
        title: 'Establishment address',
        items: [
          'establishment_address_line_1',
          'establishment_address_line_2',
          'establishment_city',
          'establishment_pincode',
          'communication_same_as_establishment',
          'communication_address_line_1',
          'communication_address_line_2',
          'communication_city',
          'communication_pincode',
        ],
      },
      {
        slug: 'tax',
        title: 'Employees and tax',
        items: [
          'employees_not_liable',
          'employees_taxed_at_175',
          'employees_taxed_at_200',
          'tax_payable',
          'interest_amount',
          'payment_mode',
          'payment_date',
          'challan_number',
        ],
      },
      { slug: 'declaration', title: 'Declaration', items: ['signatory_name', 'signatory_designation', 'declaration_accepted'] },
    ],
    redesigned: [
      {
        slug: 'return',
        title: 'Return',
        items: ['return_period', 'return_type', 'ptrc_number', 'employer_name', 'employer_pan', 'gstin'],
      },
      {
        slug: 'computation',
        title: 'Tax computation',
        items: [
          { columns: ['employees_not_liable', 'employees_taxed_at_175', 'employees_taxed_at_200'] },
          'tax_payable',
          'interest_amount',
          'payment_mode',
          'payment_date',
          'challan_number',
        ],
      },
      {
        slug: 'office-and-declaration',
        title: 'Office & declaration',
        items: [
          'establishment_address_line_1',
          'establishment_address_line_2',
          'establishment_city',
          'establishment_pincode',
          'communication_same_as_establishment',
          'communication_address_line_1',
          'communication_address_line_2',
          'communication_city',
          'communication_pincode',
          'signatory_name',
          'signatory_designation',
          'declaration_accepted',
        ],
      },
    ],
  },
  wording: {
    original: {
      startLink: 'Start a new application',
      applicationsLink: 'Your applications',
      dashboardIntro: 'File the monthly professional-tax return of an employer. Pay the tax first: the return asks for the challan number.',
    },
    redesigned: {
      startLink: 'Start a return',
      applicationsLink: 'Filed returns',
      dashboardIntro: 'e-Services for employers. Returns are due by the last day of the month.',
    },
  },
  reference: (f) => `${String(f.ptrc_number ?? '')} / ${String(f.return_period ?? '')}`,
};
