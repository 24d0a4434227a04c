#!/usr/bin/env node
// Writes the lab suite's 60 known-answer case files (20 per lab portal) to resources/eval/cases/,
// the per-case lab set-up to resources/eval/lab-setup.json, and prints the case table that
// docs/evaluation.md shows. Plain JSON out: the files are what the case loader reads, nothing more.
//
//   node resources/eval/make-cases.mjs            # write the files
//   node resources/eval/make-cases.mjs --table    # print the markdown table only
//
// Every value is a known answer: it passes the lab's own server-side validation on both layouts
// (test/e2e/lab-cases.test.ts checks), so a run that does not submit it is the agent's failure.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const CASES_DIR = join(HERE, 'cases');

/** What the office knows about each portal's other wording (the redesigned layout's labels). */
const ALIASES = {
  shops: {
    registration_number: ['Existing registration no.'],
    business_name: ['Name of establishment'],
    trade_licence_number: ['Trade licence no.'],
    establishment_category: ['Type of establishment'],
    date_of_commencement: ['Business started on'],
    number_of_employees: ['Total workers'],
    owner_name: ['Employer or owner full name'],
    owner_pan: ['PAN of owner'],
    owner_mobile: ['Mobile'],
    owner_email: ['E-mail'],
    business_address_line_1: ['Shop address line 1'],
    business_address_line_2: ['Shop address line 2'],
    business_city: ['Shop town or city'],
    business_state: ['Shop state'],
    business_pincode: ['Shop PIN code'],
    correspondence_same_as_business: ['Same as business address', 'Postal address is the same as the shop address'],
    correspondence_address_line_1: ['Postal address line 1'],
    correspondence_address_line_2: ['Postal address line 2'],
    correspondence_city: ['Postal town or city'],
    correspondence_state: ['Postal state'],
    correspondence_pincode: ['Postal PIN code'],
    renewal_period: ['Renew for'],
    open_on_sundays: ['Works on Sundays'],
    employs_night_shift_workers: ['Has night shift staff'],
    declarant_name: ['Declared by full name'],
    declarant_capacity: ['Capacity'],
  },
  power: {
    consumer_number: ['Consumer account number'],
    billing_unit: ['BU code'],
    meter_number: ['Meter serial no.'],
    connection_type: ['Tariff category'],
    sanctioned_load_kw: ['Contract load in kW'],
    current_holder_name: ['Name as on current bill'],
    new_holder_name: ['Transfer to (new name)'],
    reason_for_change: ['Why is the name changing?'],
    date_of_transfer: ['Effective date'],
    id_proof_type: ['Identity document'],
    id_proof_number: ['Document number'],
    new_holder_mobile: ['Mobile'],
    new_holder_email: ['E-mail'],
    supply_address_line_1: ['Premises address line 1'],
    supply_address_line_2: ['Premises address line 2'],
    supply_city: ['Premises town or city'],
    supply_pincode: ['Premises PIN code'],
    billing_same_as_supply: ['Same as supply address', 'Send bills to the premises address'],
    billing_address_line_1: ['Bill delivery address line 1'],
    billing_address_line_2: ['Bill delivery address line 2'],
    billing_city: ['Bill delivery town or city'],
    billing_pincode: ['Bill delivery PIN code'],
    transfer_security_deposit: ['Move the deposit to the new name'],
    paperless_billing: ['E-bill only'],
  },
  tax: {
    ptrc_number: ['Registration certificate no.'],
    employer_name: ['Name of employer'],
    employer_pan: ['PAN'],
    gstin: ['GST number'],
    return_period: ['Month'],
    return_type: ['Filing type'],
    establishment_address_line_1: ['Office address line 1'],
    establishment_address_line_2: ['Office address line 2'],
    establishment_city: ['Office town or city'],
    establishment_pincode: ['Office PIN code'],
    communication_same_as_establishment: ['Same as establishment address', 'Use the office address for letters'],
    communication_address_line_1: ['Letters address line 1'],
    communication_address_line_2: ['Letters address line 2'],
    communication_city: ['Letters town or city'],
    communication_pincode: ['Letters PIN code'],
    employees_not_liable: ['Not liable'],
    employees_taxed_at_175: ['At 175'],
    employees_taxed_at_200: ['At 200'],
    tax_payable: ['Total tax (Rs)'],
    interest_amount: ['Interest, if paid late'],
    payment_mode: ['Paid through'],
    payment_date: ['Date paid'],
    challan_number: ['CIN or UTR'],
    signatory_name: ['Authorised person'],
    signatory_designation: ['Designation'],
  },
};

const DECLARATIONS = {
  shops: ['I declare that the information given in this application is true and complete', 'I confirm the details above are true and complete'],
  power: [
    'I confirm that there are no outstanding dues on this connection',
    'No dues are outstanding on this connection',
    'I declare that the information given in this application is true and complete',
    'I confirm the details above are true and complete',
  ],
  tax: ['I certify that the particulars given in this return are true and complete', 'I confirm the details above are true and complete'],
};

const TASKS = { shops: 'shop-registration-renewal', power: 'electricity-name-change', tax: 'professional-tax-return' };

/** The lab's length limits (src/lab/portals/<id>/spec.ts), for the "at the limit" column. */
const MAX = {
  shops: { business_name: 60, owner_name: 80, owner_email: 100, business_address_line_1: 100, business_address_line_2: 100, business_city: 50, correspondence_address_line_1: 100, correspondence_address_line_2: 100, correspondence_city: 50, declarant_name: 80 },
  power: { current_holder_name: 80, new_holder_name: 80, id_proof_number: 20, new_holder_email: 100, supply_address_line_1: 100, supply_address_line_2: 100, supply_city: 50, billing_address_line_1: 100, billing_address_line_2: 100, billing_city: 50 },
  tax: { employer_name: 100, establishment_address_line_1: 100, establishment_address_line_2: 100, establishment_city: 50, communication_address_line_1: 100, communication_address_line_2: 100, communication_city: 50, signatory_name: 80 },
};

/** Optional fields of each portal (the "left empty" column). Checkboxes are optional too but always answered. */
const OPTIONAL = {
  shops: ['owner_email', 'business_address_line_2', 'correspondence_address_line_2'],
  power: ['new_holder_email', 'supply_address_line_2', 'billing_address_line_2'],
  tax: ['gstin', 'establishment_address_line_2', 'communication_address_line_2', 'interest_amount'],
};

const SAME_AS = { shops: 'correspondence_same_as_business', power: 'billing_same_as_supply', tax: 'communication_same_as_establishment' };

/** A value that must be exactly at a field's limit: the generator refuses to write it otherwise. */
function atLimit(value, limit) {
  if (value.length !== limit) throw new Error(`"${value}" is ${value.length} characters, not ${limit}`);
  return value;
}

/** tax_payable as the portal computes it (no February return here: its payment date would be in the future). */
function taxDue(f) {
  return String(Number(f.employees_taxed_at_175) * 175 + Number(f.employees_taxed_at_200) * 200);
}

// ---- shops: Shops and Establishments registration renewal ------------------------------------

const SHOPS = [
  {
    clientId: 'murugan-textiles', slug: 'murugan-textiles',
    note: 'Two addresses in two states: the shop in Coimbatore, letters to the owner in Palakkad.',
    fields: { registration_number: 'TN/SHP/2019/021187', business_name: 'Murugan Textiles', trade_licence_number: 'CCMC/TL/2023/30418', establishment_category: 'Shop', date_of_commencement: '2012-05-21', number_of_employees: '9', owner_name: 'Murugan Selvaraj', owner_pan: 'BQMPS4410K', owner_mobile: '9443012876', owner_email: 'murugan.textiles@example.in', business_address_line_1: '112, Oppanakara Street', business_address_line_2: 'Town Hall', business_city: 'Coimbatore', business_state: 'Tamil Nadu', business_pincode: '641001', correspondence_same_as_business: false, correspondence_address_line_1: '7/221, Kalpathy Agraharam', correspondence_address_line_2: 'Near Viswanatha Temple', correspondence_city: 'Palakkad', correspondence_state: 'Kerala', correspondence_pincode: '678003', renewal_period: '3 years', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'Murugan Selvaraj', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'hyderabad-opticals', slug: 'hyderabad-opticals',
    note: 'Two addresses: the shop in Secunderabad, letters to the partner’s office in Hyderabad. A partner signs.',
    fields: { registration_number: 'TS/SHP/2018/007341', business_name: 'Hyderabad Opticals', trade_licence_number: 'GHMC/TL/2022/11873', establishment_category: 'Shop', date_of_commencement: '2010-11-02', number_of_employees: '5', owner_name: 'Syed Imran Ali', owner_pan: 'AJZPA3321F', owner_mobile: '9848022110', owner_email: 'imran@hydopticals.example.in', business_address_line_1: '9-1-83, Sarojini Devi Road', business_address_line_2: 'Opp. Clock Tower', business_city: 'Secunderabad', business_state: 'Telangana', business_pincode: '500003', correspondence_same_as_business: false, correspondence_address_line_1: '6-3-1109, Raj Bhavan Road', correspondence_address_line_2: 'Somajiguda', correspondence_city: 'Hyderabad', correspondence_state: 'Telangana', correspondence_pincode: '500082', renewal_period: '5 years', open_on_sundays: false, employs_night_shift_workers: false, declarant_name: 'Farah Ali', declarant_capacity: 'Partner' },
  },
  {
    clientId: 'ganga-sweets', slug: 'ganga-sweets',
    note: 'Two addresses, letters to the owner’s home in another town. Night shift for the morning batch.',
    fields: { registration_number: 'UP/SHP/2020/045502', business_name: 'Ganga Sweets and Namkeen', trade_licence_number: 'VMC/TL/2021/77120', establishment_category: 'Hotel or restaurant', date_of_commencement: '2001-08-15', number_of_employees: '23', owner_name: 'Ramakant Tiwari', owner_pan: 'ACRPT8832B', owner_mobile: '9415033221', owner_email: 'gangasweets@example.in', business_address_line_1: 'D-47/112, Godowlia Chowk', business_address_line_2: 'Dashashwamedh Road', business_city: 'Varanasi', business_state: 'Uttar Pradesh', business_pincode: '221001', correspondence_same_as_business: false, correspondence_address_line_1: '23, Civil Lines', correspondence_address_line_2: 'Behind District Court', correspondence_city: 'Mirzapur', correspondence_state: 'Uttar Pradesh', correspondence_pincode: '231001', renewal_period: '1 year', open_on_sundays: true, employs_night_shift_workers: true, declarant_name: 'Ramakant Tiwari', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'coastal-fisheries-goa', slug: 'coastal-fisheries-goa',
    note: 'Two addresses: a commercial establishment in Margao, letters to the director in Panaji.',
    fields: { registration_number: 'GA/SHP/2017/000932', business_name: 'Coastal Fisheries Export Office', trade_licence_number: 'MMC/TL/2024/00451', establishment_category: 'Commercial establishment', date_of_commencement: '2017-02-01', number_of_employees: '14', owner_name: 'Agnelo Pereira', owner_pan: 'AAKCC5509R', owner_mobile: '9822155660', owner_email: 'office@coastalfisheries.example.in', business_address_line_1: 'Office 12, Grace Estate', business_address_line_2: 'Station Road', business_city: 'Margao', business_state: 'Goa', business_pincode: '403601', correspondence_same_as_business: false, correspondence_address_line_1: 'Flat 3B, Mandovi Apartments, 18th June Road', correspondence_address_line_2: 'Altinho', correspondence_city: 'Panaji', correspondence_state: 'Goa', correspondence_pincode: '403001', renewal_period: '3 years', open_on_sundays: false, employs_night_shift_workers: false, declarant_name: 'Agnelo Pereira', declarant_capacity: 'Director' },
  },
  {
    clientId: 'patil-hardware', slug: 'patil-hardware',
    note: 'Letters go to the shop: "same as business address" ticked, no postal address in the file.',
    fields: { registration_number: 'MH/SHP/2016/031190', business_name: 'Patil Hardware and Paints', trade_licence_number: 'KMC/TL/2023/22019', establishment_category: 'Shop', date_of_commencement: '2004-03-10', number_of_employees: '6', owner_name: 'Sanjay Patil', owner_pan: 'ALVPP2290D', owner_mobile: '9890044312', owner_email: 'patilhardware@example.in', business_address_line_1: '1432, C Ward, Mahadwar Road', business_address_line_2: 'Near Binkhambi Ganesh Mandir', business_city: 'Kolhapur', business_state: 'Maharashtra', business_pincode: '416012', correspondence_same_as_business: true, renewal_period: '5 years', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'Sanjay Patil', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'mysore-silk-corner', slug: 'mysore-silk-corner',
    note: '"Same as business address" ticked, and the office’s export also lists the postal address as the shop’s: the portal copies it either way.',
    fields: { registration_number: 'KA/SHP/2015/019904', business_name: 'Mysore Silk Corner', trade_licence_number: 'MCC/TL/2022/09931', establishment_category: 'Shop', date_of_commencement: '2015-09-01', number_of_employees: '8', owner_name: 'Shashikala Gowda', owner_pan: 'BHYPG6710L', owner_mobile: '9880122134', owner_email: 'silkcorner@example.in', business_address_line_1: '2, Sayyaji Rao Road', business_address_line_2: 'Devaraja Mohalla', business_city: 'Mysuru', business_state: 'Karnataka', business_pincode: '570001', correspondence_same_as_business: true, correspondence_address_line_1: '2, Sayyaji Rao Road', correspondence_address_line_2: 'Devaraja Mohalla', correspondence_city: 'Mysuru', correspondence_state: 'Karnataka', correspondence_pincode: '570001', renewal_period: '3 years', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'Shashikala Gowda', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'royal-cinema-indore', slug: 'royal-cinema-indore',
    note: 'A cinema: theatre category, night shift, letters to the hall (same as business address). The manager signs.',
    fields: { registration_number: 'MP/SHP/2011/002231', business_name: 'Royal Talkies', trade_licence_number: 'IMC/TL/2024/41120', establishment_category: 'Theatre or place of public amusement', date_of_commencement: '1978-12-25', number_of_employees: '31', owner_name: 'Vikram Singh Chouhan', owner_pan: 'ADMPC1187N', owner_mobile: '9826011873', owner_email: 'royaltalkies@example.in', business_address_line_1: '5, Rajwada Chowk', business_address_line_2: 'MG Road', business_city: 'Indore', business_state: 'Madhya Pradesh', business_pincode: '452007', correspondence_same_as_business: true, renewal_period: '1 year', open_on_sundays: true, employs_night_shift_workers: true, declarant_name: 'Deepak Joshi', declarant_capacity: 'Manager' },
  },
  {
    clientId: 'sharma-kirana', slug: 'sharma-kirana',
    note: 'Owner and declarant in Devanagari, as on the registration certificate. Letters to the shop.',
    fields: { registration_number: 'RJ/SHP/2019/008876', business_name: 'शर्मा किराना स्टोर', trade_licence_number: 'JMC/TL/2023/60112', establishment_category: 'Shop', date_of_commencement: '2019-04-14', number_of_employees: '2', owner_name: 'राजेश कुमार शर्मा', owner_pan: 'CFHPS9032A', owner_mobile: '9414456780', owner_email: 'sharmakirana@example.in', business_address_line_1: '45, Johari Bazaar', business_address_line_2: 'Near Hawa Mahal', business_city: 'Jaipur', business_state: 'Rajasthan', business_pincode: '302003', correspondence_same_as_business: true, renewal_period: '3 years', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'राजेश कुमार शर्मा', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'selvi-stores', slug: 'selvi-stores',
    note: 'Shop name and owner in Tamil script; the postal address line 1 in Tamil too. Two addresses.',
    fields: { registration_number: 'TN/SHP/2021/030017', business_name: 'செல்வி ஸ்டோர்ஸ்', trade_licence_number: 'MMC/TL/2021/18840', establishment_category: 'Shop', date_of_commencement: '2021-01-26', number_of_employees: '3', owner_name: 'செல்வி ராமசாமி', owner_pan: 'DKRPR4471H', owner_mobile: '9443178802', owner_email: 'selvistores@example.in', business_address_line_1: '18, West Masi Street', business_address_line_2: 'Near Meenakshi Amman Temple', business_city: 'Madurai', business_state: 'Tamil Nadu', business_pincode: '625001', correspondence_same_as_business: false, correspondence_address_line_1: '4, காமராஜர் சாலை', correspondence_address_line_2: 'Anna Nagar', correspondence_city: 'Madurai', correspondence_state: 'Tamil Nadu', correspondence_pincode: '625020', renewal_period: '5 years', open_on_sundays: false, employs_night_shift_workers: false, declarant_name: 'செல்வி ராமசாமி', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'cafe-francoise', slug: 'cafe-francoise',
    note: 'Accented Latin in the business and owner names (Françoise, Café, Noël). Letters to the café.',
    fields: { registration_number: 'KL/SHP/2022/010452', business_name: 'Café Françoise', trade_licence_number: 'KOC/TL/2022/33017', establishment_category: 'Hotel or restaurant', date_of_commencement: '2022-06-10', number_of_employees: '11', owner_name: 'Françoise Noël D’Souza', owner_pan: 'BEXPD7721J', owner_mobile: '9846077123', owner_email: 'bonjour@cafefrancoise.example.in', business_address_line_1: '1/274, Princess Street', business_address_line_2: 'Fort Kochi', business_city: 'Kochi', business_state: 'Kerala', business_pincode: '682001', correspondence_same_as_business: true, renewal_period: '1 year', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'Françoise Noël D’Souza', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'bandopadhyay-books', slug: 'bandopadhyay-books',
    note: 'Owner in Bengali script; the declarant (the manager) in Latin. Two addresses in Kolkata.',
    fields: { registration_number: 'WB/SHP/2014/055103', business_name: 'Boi Para Book House', trade_licence_number: 'KMC/TL/2023/91006', establishment_category: 'Shop', date_of_commencement: '1996-01-02', number_of_employees: '4', owner_name: 'সুব্রত বন্দ্যোপাধ্যায়', owner_pan: 'AGBPB2241E', owner_mobile: '9830045561', owner_email: 'boipara@example.in', business_address_line_1: '32, College Street', business_address_line_2: 'Near Presidency University', business_city: 'Kolkata', business_state: 'West Bengal', business_pincode: '700073', correspondence_same_as_business: false, correspondence_address_line_1: '14B, Lake Place', correspondence_address_line_2: 'Ballygunge', correspondence_city: 'Kolkata', correspondence_state: 'West Bengal', correspondence_pincode: '700029', renewal_period: '3 years', open_on_sundays: false, employs_night_shift_workers: false, declarant_name: 'Amit Ghosh', declarant_capacity: 'Manager' },
  },
  {
    clientId: 'ludhiana-hosiery', slug: 'ludhiana-hosiery',
    note: 'No e-mail and no second address lines: the optional fields are left out of the file. Letters to a second address.',
    fields: { registration_number: 'PB/SHP/2013/012288', business_name: 'Ludhiana Hosiery Mart', trade_licence_number: 'MCL/TL/2022/40981', establishment_category: 'Shop', date_of_commencement: '2013-10-07', number_of_employees: '12', owner_name: 'Harpreet Singh Bedi', owner_pan: 'AFNPB5512G', owner_mobile: '9814077321', business_address_line_1: 'Shop 41, Chaura Bazaar', business_city: 'Ludhiana', business_state: 'Punjab', business_pincode: '141008', correspondence_same_as_business: false, correspondence_address_line_1: '277, Model Town Extension', correspondence_city: 'Ludhiana', correspondence_state: 'Punjab', correspondence_pincode: '141002', renewal_period: '3 years', open_on_sundays: false, employs_night_shift_workers: false, declarant_name: 'Harpreet Singh Bedi', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'ahmedabad-mobile-care', slug: 'ahmedabad-mobile-care',
    note: 'Optional fields given as empty strings by the office’s export (e-mail, address line 2): they must stay empty.',
    fields: { registration_number: 'GJ/SHP/2023/004409', business_name: 'Mobile Care Point', trade_licence_number: 'AMC/TL/2023/12003', establishment_category: 'Shop', date_of_commencement: '2023-02-14', number_of_employees: '0', owner_name: 'Kiran Solanki', owner_pan: 'HJKPS3390P', owner_mobile: '7016022345', owner_email: '', business_address_line_1: 'G-7, Shivalik Plaza, IIM Road', business_address_line_2: '', business_city: 'Ahmedabad', business_state: 'Gujarat', business_pincode: '380015', correspondence_same_as_business: true, renewal_period: '1 year', open_on_sundays: false, employs_night_shift_workers: false, declarant_name: 'Kiran Solanki', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'delhi-spice-traders', slug: 'delhi-spice-traders',
    note: 'A sole trader with no staff and every yes/no answered no; no e-mail. Letters to the shop.',
    fields: { registration_number: 'DL/SHP/2012/070045', business_name: 'Delhi Spice Traders', trade_licence_number: 'MCD/TL/2024/50032', establishment_category: 'Commercial establishment', date_of_commencement: '2012-07-01', number_of_employees: '0', owner_name: 'Mohammed Yusuf Qureshi', owner_pan: 'AOJPQ1102C', owner_mobile: '9811022390', business_address_line_1: '4171, Khari Baoli', business_address_line_2: 'Chandni Chowk', business_city: 'Delhi', business_state: 'Delhi', business_pincode: '110006', correspondence_same_as_business: true, renewal_period: '1 year', open_on_sundays: false, employs_night_shift_workers: false, declarant_name: 'Mohammed Yusuf Qureshi', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'vizag-marine-supplies', slug: 'vizag-marine-supplies',
    note: 'The portal’s PAN look-up fails on the first try and empties the field; the PAN is typed again from the file.',
    lab: { rejectFieldOnce: 'owner_pan' },
    fields: { registration_number: 'AP/SHP/2018/016650', business_name: 'Vizag Marine Supplies', trade_licence_number: 'GVMC/TL/2022/07718', establishment_category: 'Commercial establishment', date_of_commencement: '2008-04-01', number_of_employees: '17', owner_name: 'Venkata Ramana Murthy', owner_pan: 'AHTPM6651Q', owner_mobile: '9848033409', owner_email: 'vms@example.in', business_address_line_1: '10-12-7, Harbour Approach Road', business_address_line_2: 'Kotaveedhi', business_city: 'Visakhapatnam', business_state: 'Andhra Pradesh', business_pincode: '530001', correspondence_same_as_business: false, correspondence_address_line_1: '50-81-14, Seethammapeta', correspondence_address_line_2: 'Near Diamond Park', correspondence_city: 'Visakhapatnam', correspondence_state: 'Andhra Pradesh', correspondence_pincode: '530016', renewal_period: '5 years', open_on_sundays: false, employs_night_shift_workers: true, declarant_name: 'Venkata Ramana Murthy', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'nilgiri-tea-house', slug: 'nilgiri-tea-house',
    note: 'PAN look-up fails once (field emptied); the owner name is in Tamil script. Letters to the tea house.',
    lab: { rejectFieldOnce: 'owner_pan' },
    fields: { registration_number: 'TN/SHP/2016/009125', business_name: 'Nilgiri Tea House', trade_licence_number: 'OOTY/TL/2023/01877', establishment_category: 'Hotel or restaurant', date_of_commencement: '2016-05-05', number_of_employees: '7', owner_name: 'பிரியா சுந்தரம்', owner_pan: 'CWLPS8834M', owner_mobile: '9443290017', owner_email: 'nilgiriteahouse@example.in', business_address_line_1: '3, Commercial Road', business_address_line_2: 'Charing Cross', business_city: 'Ooty', business_state: 'Tamil Nadu', business_pincode: '643001', correspondence_same_as_business: true, renewal_period: '3 years', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'Priya Sundaram', declarant_capacity: 'Owner' },
  },
  {
    clientId: 'bharat-electricals-nagpur', slug: 'bharat-electricals-nagpur',
    note: 'Every address field at its limit (100-character lines, 50-character city); two addresses.',
    fields: {
      registration_number: 'MH/SHP/2010/090417', business_name: 'Bharat Electricals', trade_licence_number: 'NMC/TL/2022/60033', establishment_category: 'Shop', date_of_commencement: '2010-01-15', number_of_employees: '5', owner_name: 'Prakash Deshmukh', owner_pan: 'AQWPD4471B', owner_mobile: '9822766104', owner_email: 'bharatelectricals@example.in',
      business_address_line_1: atLimit('Shop Nos. 14 & 15, Ground Floor, Shri Sai Commercial Complex, Opposite Variety Square City Bus Stand', 100),
      business_address_line_2: atLimit('Sitabuldi Main Road, Near Munje Chowk, Behind Old Maharashtra Bank Building, Ward No. 21, Block C-12', 100),
      business_city: atLimit('Nagpur Municipal Corporation Area - Sitabuldi Zone', 50),
      business_state: 'Maharashtra', business_pincode: '440012', correspondence_same_as_business: false,
      correspondence_address_line_1: atLimit('Flat 402, Fourth Floor, Building B, Shreenath Heights Co-operative Housing Society, Pratap Nagar Rd.', 100),
      correspondence_address_line_2: atLimit('Near Pratap Nagar Square, Opposite Shri Ram Mandir, Behind Bank of Maharashtra, Nagpur East Side 022', 100),
      correspondence_city: atLimit('Nagpur Municipal Corporation Area, Dharampeth Zone', 50),
      correspondence_state: 'Maharashtra', correspondence_pincode: '440022', renewal_period: '3 years', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'Prakash Deshmukh', declarant_capacity: 'Owner',
    },
  },
  {
    clientId: 'trivandrum-ayurveda', slug: 'trivandrum-ayurveda',
    note: 'Business name at the 60-character limit; owner and declarant names at the 80-character limit.',
    fields: {
      registration_number: 'KL/SHP/2009/003318', business_name: atLimit('Sree Padmanabha Ayurveda Vaidyasala & Panchakarma Clinic TVM', 60), trade_licence_number: 'TMC/TL/2021/14452', establishment_category: 'Commercial establishment', date_of_commencement: '2009-08-17', number_of_employees: '19',
      owner_name: atLimit('Vaidyan Thekkedathu Madathil Sreedharan Nair Unnikrishnan Pillai K. Ramachandran', 80), owner_pan: 'AJKPN9920E', owner_mobile: '9447011293', owner_email: 'vaidyasala@example.in', business_address_line_1: 'TC 25/1611, Fort Road', business_address_line_2: 'East Fort', business_city: 'Thiruvananthapuram', business_state: 'Kerala', business_pincode: '695023', correspondence_same_as_business: true, renewal_period: '5 years', open_on_sundays: false, employs_night_shift_workers: false,
      declarant_name: atLimit('Vaidyan Thekkedathu Madathil Sreedharan Nair Unnikrishnan Pillai K. Ramachandran', 80), declarant_capacity: 'Owner',
    },
  },
  {
    clientId: 'ganesh-mishthan-bhandar', slug: 'ganesh-mishthan-bhandar',
    note: 'Business name in Devanagari exactly at the 60-character limit; declarant name in Devanagari. Two addresses.',
    fields: {
      registration_number: 'MP/SHP/2020/017760', business_name: atLimit('श्री गणेश मिष्ठान्न भंडार एवं शुद्ध घी नमकीन कारखाना (भोपाल)', 60), trade_licence_number: 'BMC/TL/2022/30090', establishment_category: 'Hotel or restaurant', date_of_commencement: '2020-10-25', number_of_employees: '15', owner_name: 'गणेश प्रसाद अग्रवाल', owner_pan: 'BNMPA5543R', owner_mobile: '9425012388', owner_email: 'ganeshmishthan@example.in', business_address_line_1: '17, New Market', business_address_line_2: 'TT Nagar', business_city: 'Bhopal', business_state: 'Madhya Pradesh', business_pincode: '462003', correspondence_same_as_business: false, correspondence_address_line_1: 'E-5/112, Arera Colony', correspondence_address_line_2: 'Near Habibganj', correspondence_city: 'Bhopal', correspondence_state: 'Madhya Pradesh', correspondence_pincode: '462016', renewal_period: '3 years', open_on_sundays: true, employs_night_shift_workers: true, declarant_name: 'गणेश प्रसाद अग्रवाल', declarant_capacity: 'Owner',
    },
  },
  {
    clientId: 'amritsar-phulkari', slug: 'amritsar-phulkari',
    note: 'An authorised signatory declares; owner e-mail at the 100-character limit; the shop has no address line 2.',
    fields: {
      registration_number: 'PB/SHP/2024/000581', business_name: 'Phulkari Emporium', trade_licence_number: 'MCA/TL/2024/02231', establishment_category: 'Shop', date_of_commencement: '2024-01-13', number_of_employees: '6', owner_name: 'Gurpreet Kaur Sandhu', owner_pan: 'CSLPK7012F', owner_mobile: '9876012344',
      owner_email: atLimit('gurpreet.kaur.sandhu.phulkari.emporium.hall.bazaar.amritsar.punjab.accounts.team@mailbox1.example.in', 100),
      business_address_line_1: 'Shop 9, Hall Bazaar', business_city: 'Amritsar', business_state: 'Punjab', business_pincode: '143006', correspondence_same_as_business: true, renewal_period: '1 year', open_on_sundays: true, employs_night_shift_workers: false, declarant_name: 'Jaspal Singh Gill', declarant_capacity: 'Authorised signatory',
    },
  },
];

// ---- power: change of name on an electricity connection --------------------------------------

const POWER = [
  {
    clientId: 'anjali-menon', slug: 'anjali-menon',
    note: 'Flat bought in Kochi; bills to the buyer’s present home in Thrissur until she moves in. Two addresses.',
    fields: { consumer_number: '115540023317', billing_unit: '5512', meter_number: 'KL11093388', connection_type: 'Residential', sanctioned_load_kw: '4', current_holder_name: 'Joseph Mathew', new_holder_name: 'Anjali Menon', reason_for_change: 'Sale of property', date_of_transfer: '2026-09-12', id_proof_type: 'Passport', id_proof_number: 'T4410932', new_holder_mobile: '9847011290', new_holder_email: 'anjali.menon@example.in', supply_address_line_1: 'Flat 7C, Skyline Ivy League', supply_address_line_2: 'Kakkanad', supply_city: 'Kochi', supply_pincode: '682030', billing_same_as_supply: false, billing_address_line_1: 'Menon House, Round North', billing_address_line_2: 'Near Vadakkunnathan Temple', billing_city: 'Thrissur', billing_pincode: '680001', transfer_security_deposit: true, paperless_billing: true },
  },
  {
    clientId: 'gupta-cold-storage', slug: 'gupta-cold-storage',
    note: 'An industrial connection sold with the cold store; bills to the buyer’s head office. Two addresses.',
    fields: { consumer_number: '330918004456', billing_unit: '2207', meter_number: 'UP32881104', connection_type: 'Industrial', sanctioned_load_kw: '125', current_holder_name: 'Shri Ram Agro Cold Chain', new_holder_name: 'Gupta Cold Storage Private Limited', reason_for_change: 'Sale of property', date_of_transfer: '2026-06-30', id_proof_type: 'PAN card', id_proof_number: 'AAHCG4412K', new_holder_mobile: '9415098871', new_holder_email: 'accounts@guptacold.example.in', supply_address_line_1: 'Plot 44, UPSIDC Industrial Area', supply_address_line_2: 'Site B', supply_city: 'Unnao', supply_pincode: '209801', billing_same_as_supply: false, billing_address_line_1: '12/5, Mall Road', billing_address_line_2: 'Civil Lines', billing_city: 'Kanpur', billing_pincode: '208001', transfer_security_deposit: false, paperless_billing: true },
  },
  {
    clientId: 'farhan-qureshi', slug: 'farhan-qureshi',
    note: 'A shop connection transferred within the family; bills to the family home. Decimal load (2.25 kW).',
    fields: { consumer_number: '402200991173', billing_unit: '4031', meter_number: 'MP09221783', connection_type: 'Commercial', sanctioned_load_kw: '2.25', current_holder_name: 'Abdul Rashid Qureshi', new_holder_name: 'Farhan Qureshi', reason_for_change: 'Transfer within family', date_of_transfer: '2026-05-02', id_proof_type: 'Aadhaar card', id_proof_number: '6631 0912 4471', new_holder_mobile: '9826090213', new_holder_email: 'farhan.q@example.in', supply_address_line_1: 'Shop 3, Sarafa Bazaar', supply_address_line_2: 'Rajwada', supply_city: 'Indore', supply_pincode: '452002', billing_same_as_supply: false, billing_address_line_1: '56, Khajrana Road', billing_address_line_2: 'Near Ganesh Mandir', billing_city: 'Indore', billing_pincode: '452016', transfer_security_deposit: true, paperless_billing: false },
  },
  {
    clientId: 'kavya-rao', slug: 'kavya-rao',
    note: 'Inherited house in Hubballi; bills to the heir in Bengaluru. Two addresses, no e-bill.',
    fields: { consumer_number: '610077342219', billing_unit: '6604', meter_number: 'KA25330871', connection_type: 'Residential', sanctioned_load_kw: '3', current_holder_name: 'Late Shri Narayan Rao', new_holder_name: 'Kavya Rao', reason_for_change: 'Inheritance', date_of_transfer: '2026-03-18', id_proof_type: 'Voter ID card', id_proof_number: 'KRX4419023', new_holder_mobile: '9980112233', new_holder_email: 'kavya.rao@example.in', supply_address_line_1: '21, Deshpande Nagar', supply_address_line_2: 'Near Court Circle', supply_city: 'Hubballi', supply_pincode: '580029', billing_same_as_supply: false, billing_address_line_1: '88, 4th Main, Malleswaram', billing_address_line_2: '18th Cross', billing_city: 'Bengaluru', billing_pincode: '560055', transfer_security_deposit: true, paperless_billing: false },
  },
  {
    clientId: 'baldev-farms', slug: 'baldev-farms',
    note: 'Farm pump connection to the son; bills to the farm ("same as supply address").',
    fields: { consumer_number: '770412008841', billing_unit: '7720', meter_number: 'PB08119302', connection_type: 'Agricultural', sanctioned_load_kw: '7.5', current_holder_name: 'Baldev Singh Dhillon', new_holder_name: 'Gurjit Singh Dhillon', reason_for_change: 'Transfer within family', date_of_transfer: '2026-04-13', id_proof_type: 'Aadhaar card', id_proof_number: '5520 8812 0093', new_holder_mobile: '9815023341', new_holder_email: 'gurjit.dhillon@example.in', supply_address_line_1: 'Khasra No. 212, Village Rampura', supply_address_line_2: 'Tehsil Phul', supply_city: 'Bathinda', supply_pincode: '151103', billing_same_as_supply: true, transfer_security_deposit: true, paperless_billing: false },
  },
  {
    clientId: 'lakshmi-narayanan', slug: 'lakshmi-narayanan',
    note: 'Name corrected on the connection; bills to the premises. The file repeats the premises as the bill address.',
    fields: { consumer_number: '090033418872', billing_unit: '0902', meter_number: 'TN04551230', connection_type: 'Residential', sanctioned_load_kw: '5', current_holder_name: 'Laxmi Narayan', new_holder_name: 'Lakshmi Narayanan', reason_for_change: 'Correction of name', date_of_transfer: '2026-10-01', id_proof_type: 'Passport', id_proof_number: 'Z8812034', new_holder_mobile: '9444122093', new_holder_email: 'lakshmi.n@example.in', supply_address_line_1: 'Old No. 12, New No. 27, Luz Church Road', supply_address_line_2: 'Mylapore', supply_city: 'Chennai', supply_pincode: '600004', billing_same_as_supply: true, billing_address_line_1: 'Old No. 12, New No. 27, Luz Church Road', billing_address_line_2: 'Mylapore', billing_city: 'Chennai', billing_pincode: '600004', transfer_security_deposit: false, paperless_billing: true },
  },
  {
    clientId: 'sunrise-clinic', slug: 'sunrise-clinic',
    note: 'A clinic bought by a doctor; commercial connection, bills to the clinic. No address line 2 anywhere.',
    fields: { consumer_number: '220118907765', billing_unit: '2214', meter_number: 'GJ01772219', connection_type: 'Commercial', sanctioned_load_kw: '15', current_holder_name: 'Mehta Diagnostics', new_holder_name: 'Dr. Nirali Shah', reason_for_change: 'Sale of property', date_of_transfer: '2026-08-01', id_proof_type: 'Driving licence', id_proof_number: 'GJ01 20140012233', new_holder_mobile: '9825066710', new_holder_email: 'sunriseclinic@example.in', supply_address_line_1: 'Ground Floor, Sunrise Complex, CG Road', supply_city: 'Ahmedabad', supply_pincode: '380009', billing_same_as_supply: true, transfer_security_deposit: true, paperless_billing: true },
  },
  {
    clientId: 'harbour-view-flat', slug: 'harbour-view-flat',
    note: 'Inherited flat in Mumbai, bills to the flat. Deposit not transferred, paper bills.',
    fields: { consumer_number: '100245661098', billing_unit: '1015', meter_number: 'MH01990021', connection_type: 'Residential', sanctioned_load_kw: '6', current_holder_name: 'Homi Jehangir Wadia', new_holder_name: 'Roshan Wadia', reason_for_change: 'Inheritance', date_of_transfer: '2026-02-27', id_proof_type: 'PAN card', id_proof_number: 'AAPPW3381H', new_holder_mobile: '9820012986', new_holder_email: 'roshan.wadia@example.in', supply_address_line_1: 'Flat 9, Harbour View, Colaba Causeway', supply_address_line_2: 'Colaba', supply_city: 'Mumbai', supply_pincode: '400005', billing_same_as_supply: true, transfer_security_deposit: false, paperless_billing: false },
  },
  {
    clientId: 'sunita-yadav', slug: 'sunita-yadav',
    note: 'New holder’s name in Devanagari, as on her Aadhaar card; current holder in Latin. Bills to the premises.',
    fields: { consumer_number: '250067731904', billing_unit: '2502', meter_number: 'UP78004411', connection_type: 'Residential', sanctioned_load_kw: '2', current_holder_name: 'Ram Avtar Yadav', new_holder_name: 'सुनीता देवी यादव', reason_for_change: 'Inheritance', date_of_transfer: '2026-07-07', id_proof_type: 'Aadhaar card', id_proof_number: '7789 1022 3345', new_holder_mobile: '9452011876', supply_address_line_1: 'House 112, Gram Sarai', supply_address_line_2: 'Post Chaubepur', supply_city: 'Varanasi', supply_pincode: '221104', billing_same_as_supply: true, transfer_security_deposit: true, paperless_billing: false },
  },
  {
    clientId: 'srinivasa-murthy', slug: 'srinivasa-murthy',
    note: 'Both names in Kannada script. Two addresses: bills to the son’s house.',
    fields: { consumer_number: '640221190087', billing_unit: '6401', meter_number: 'KA51228734', connection_type: 'Residential', sanctioned_load_kw: '4.5', current_holder_name: 'ಕೃಷ್ಣಮೂರ್ತಿ ಕೆ', new_holder_name: 'ಶ್ರೀನಿವಾಸ ಮೂರ್ತಿ ಕೆ', reason_for_change: 'Inheritance', date_of_transfer: '2026-01-20', id_proof_type: 'Voter ID card', id_proof_number: 'KAY7781203', new_holder_mobile: '9945011203', new_holder_email: 'srinivasa.murthy@example.in', supply_address_line_1: '34, 2nd Cross, Gandhi Bazaar', supply_address_line_2: 'Basavanagudi', supply_city: 'Bengaluru', supply_pincode: '560004', billing_same_as_supply: false, billing_address_line_1: '7, 11th Main, Jayanagar 4th Block', billing_address_line_2: 'Near Jayanagar Shopping Complex', billing_city: 'Bengaluru', billing_pincode: '560011', transfer_security_deposit: true, paperless_billing: true },
  },
  {
    clientId: 'thomas-varghese', slug: 'thomas-varghese',
    note: 'New holder in Malayalam script; bills to the premises.',
    fields: { consumer_number: '117700345521', billing_unit: '1177', meter_number: 'KL07661032', connection_type: 'Residential', sanctioned_load_kw: '3.5', current_holder_name: 'Mariamma Varghese', new_holder_name: 'തോമസ് വർഗീസ് പുത്തൻപുരയ്ക്കൽ', reason_for_change: 'Inheritance', date_of_transfer: '2026-06-05', id_proof_type: 'Aadhaar card', id_proof_number: '3310 4471 8820', new_holder_mobile: '9447230011', new_holder_email: 'thomas.v@example.in', supply_address_line_1: 'Puthenpurackal House, Kanjikuzhy', supply_address_line_2: 'Near St. Mary’s Church', supply_city: 'Kottayam', supply_pincode: '686004', billing_same_as_supply: true, transfer_security_deposit: true, paperless_billing: true },
  },
  {
    clientId: 'joaquim-noronha', slug: 'joaquim-noronha',
    note: 'Accented Latin names (Conceição, Noronha); a house in Goa sold, bills to the buyer’s flat in Panaji.',
    fields: { consumer_number: '880011234409', billing_unit: '8803', meter_number: 'GA02113388', connection_type: 'Residential', sanctioned_load_kw: '5', current_holder_name: 'Maria da Conceição Fernandes', new_holder_name: 'Joaquim Conceição Noronha', reason_for_change: 'Sale of property', date_of_transfer: '2026-11-09', id_proof_type: 'Passport', id_proof_number: 'P5512098', new_holder_mobile: '9822590014', new_holder_email: 'joaquim.noronha@example.in', supply_address_line_1: 'H. No. 214, Fontainhas', supply_address_line_2: 'Mala', supply_city: 'Panaji', supply_pincode: '403001', billing_same_as_supply: false, billing_address_line_1: 'Flat S-2, Rio Grande Residency', billing_address_line_2: 'Miramar', billing_city: 'Panaji', billing_pincode: '403001', transfer_security_deposit: false, paperless_billing: true },
  },
  {
    clientId: 'pooja-bansal', slug: 'pooja-bansal',
    note: 'No e-mail and no second address lines: the optional fields are left out. Bills to the premises.',
    fields: { consumer_number: '120034567712', billing_unit: '1203', meter_number: 'DL05118822', connection_type: 'Residential', sanctioned_load_kw: '4', current_holder_name: 'Suresh Bansal', new_holder_name: 'Pooja Bansal', reason_for_change: 'Transfer within family', date_of_transfer: '2026-09-30', id_proof_type: 'PAN card', id_proof_number: 'BJRPB2204N', new_holder_mobile: '9810044521', supply_address_line_1: 'C-112, Lajpat Nagar II', supply_city: 'Delhi', supply_pincode: '110024', billing_same_as_supply: true, transfer_security_deposit: false, paperless_billing: false },
  },
  {
    clientId: 'ravi-teja-kumar', slug: 'ravi-teja-kumar',
    note: 'Optional fields given as empty strings (e-mail and both address lines 2); two addresses.',
    fields: { consumer_number: '530071122908', billing_unit: '5307', meter_number: 'TS07442109', connection_type: 'Commercial', sanctioned_load_kw: '10', current_holder_name: 'Sri Sai Traders', new_holder_name: 'Ravi Teja Kumar', reason_for_change: 'Sale of property', date_of_transfer: '2026-10-22', id_proof_type: 'Aadhaar card', id_proof_number: '9012 3344 5567', new_holder_mobile: '9866011234', new_holder_email: '', supply_address_line_1: 'Shop 6, Ameerpet X Roads', supply_address_line_2: '', supply_city: 'Hyderabad', supply_pincode: '500016', billing_same_as_supply: false, billing_address_line_1: 'Plot 77, Madhapur', billing_address_line_2: '', billing_city: 'Hyderabad', billing_pincode: '500081', transfer_security_deposit: true, paperless_billing: false },
  },
  {
    clientId: 'biswas-bakery', slug: 'biswas-bakery',
    note: 'The portal’s consumer-number look-up fails on the first try and empties the field; it is typed again from the file.',
    lab: { rejectFieldOnce: 'consumer_number' },
    fields: { consumer_number: '710288004412', billing_unit: '7102', meter_number: 'WB19334401', connection_type: 'Commercial', sanctioned_load_kw: '8', current_holder_name: 'Dutta Confectioners', new_holder_name: 'Biswas Bakery', reason_for_change: 'Sale of property', date_of_transfer: '2026-08-14', id_proof_type: 'PAN card', id_proof_number: 'AAKFB7720Q', new_holder_mobile: '9831077213', new_holder_email: 'biswasbakery@example.in', supply_address_line_1: '18, Gariahat Road', supply_address_line_2: 'Ballygunge', supply_city: 'Kolkata', supply_pincode: '700019', billing_same_as_supply: true, transfer_security_deposit: true, paperless_billing: true },
  },
  {
    clientId: 'meenakshi-iyengar', slug: 'meenakshi-iyengar',
    note: 'Identity-document look-up fails once (field emptied); two addresses.',
    lab: { rejectFieldOnce: 'id_proof_number' },
    fields: { consumer_number: '091177230045', billing_unit: '0911', meter_number: 'TN22119043', connection_type: 'Residential', sanctioned_load_kw: '3', current_holder_name: 'Rangachari Iyengar', new_holder_name: 'Meenakshi Iyengar', reason_for_change: 'Inheritance', date_of_transfer: '2026-04-28', id_proof_type: 'Aadhaar card', id_proof_number: '4410 2298 7731', new_holder_mobile: '9444510023', new_holder_email: 'meenakshi.i@example.in', supply_address_line_1: '5, South Chitrai Street', supply_address_line_2: 'Srirangam', supply_city: 'Tiruchirappalli', supply_pincode: '620006', billing_same_as_supply: false, billing_address_line_1: '22, Besant Avenue', billing_address_line_2: 'Adyar', billing_city: 'Chennai', billing_pincode: '600020', transfer_security_deposit: false, paperless_billing: true },
  },
  {
    clientId: 'whitefield-tower-flat', slug: 'whitefield-tower-flat',
    note: 'Supply address line 1 at 100 characters, city at 50; identity document number at the 20-character limit.',
    fields: {
      consumer_number: '650098871234', billing_unit: '6509', meter_number: 'KA53112089', connection_type: 'Residential', sanctioned_load_kw: '6', current_holder_name: 'Prestige Estates Projects', new_holder_name: 'Arvind Krishnamurthy', reason_for_change: 'Sale of property', date_of_transfer: '2026-11-02', id_proof_type: 'Driving licence', id_proof_number: atLimit('MH12 2011 0012345678', 20), new_holder_mobile: '9902211873', new_holder_email: 'arvind.k@example.in',
      supply_address_line_1: atLimit('Flat 1102, Eleventh Floor, Tower C, Prestige Shantiniketan, Whitefield Main Road, Hoodi Village Road', 100), supply_address_line_2: 'Whitefield', supply_city: atLimit('Bengaluru Urban District, Mahadevapura Zone Ward 8', 50), supply_pincode: '560048', billing_same_as_supply: true, transfer_security_deposit: true, paperless_billing: true,
    },
  },
  {
    clientId: 'albuquerque-estate', slug: 'albuquerque-estate',
    note: 'Both holder names at the 80-character limit, one with accents; bill address lines at 100 characters.',
    fields: {
      consumer_number: '880077112233', billing_unit: '8807', meter_number: 'GA05228811', connection_type: 'Residential', sanctioned_load_kw: '7', current_holder_name: atLimit('Alexandrina Maria Fernandes e Menezes de Albuquerque Lobo Pereira da Costa Gomes', 80),
      new_holder_name: atLimit('Maria Fernanda da Conceição Rodrigues de Albuquerque e Souza Mascarenhas Pinto J', 80), reason_for_change: 'Inheritance', date_of_transfer: '2026-05-19', id_proof_type: 'Passport', id_proof_number: 'R1029384', new_holder_mobile: '9823400112', new_holder_email: 'mf.albuquerque@example.in', supply_address_line_1: 'Casa Albuquerque, H. No. 56, Loutolim', supply_address_line_2: 'Salcete', supply_city: 'Margao', supply_pincode: '403718', billing_same_as_supply: false,
      billing_address_line_1: atLimit('Apartment 3B, Third Floor, Casa Miramar Residency, Dona Paula Plateau Road, Near the National Insti.', 100), billing_address_line_2: atLimit('Opposite the Goa University Main Gate, Taleigao Plateau, Caranzalem and Dona Paula Village Panchayat', 100), billing_city: 'Panaji', billing_pincode: '403004', transfer_security_deposit: true, paperless_billing: false,
    },
  },
  {
    clientId: 'nandini-venkat', slug: 'nandini-venkat',
    note: 'E-mail at the 100-character limit; bill address line 1 at 100; two addresses.',
    fields: {
      consumer_number: '540012239987', billing_unit: '5401', meter_number: 'AP39118820', connection_type: 'Residential', sanctioned_load_kw: '4', current_holder_name: 'Venkatachalapathy R', new_holder_name: 'Nandini Venkatachalapathy', reason_for_change: 'Transfer within family', date_of_transfer: '2026-10-15', id_proof_type: 'Aadhaar card', id_proof_number: '8812 0034 5561', new_holder_mobile: '9440077218',
      new_holder_email: atLimit('nandini.venkatachalapathy.residence.billing.and.connection.updates.2026.nvck@homeinbox.example.co.in', 100), supply_address_line_1: '12-2-417, Gandhi Nagar', supply_address_line_2: 'Near Benz Circle', supply_city: 'Vijayawada', supply_pincode: '520003', billing_same_as_supply: false,
      billing_address_line_1: atLimit('Near Kalamassery Metro Station, HMT Colony Road, Opp. Govt. Polytechnic College, North Kalamassery P', 100), billing_city: 'Kochi', billing_pincode: '683104', transfer_security_deposit: false, paperless_billing: true,
    },
  },
  {
    clientId: 'odisha-handloom-house', slug: 'odisha-handloom-house',
    note: 'New holder name in Odia script; consumer-number look-up fails once; bills to the premises.',
    lab: { rejectFieldOnce: 'consumer_number' },
    fields: { consumer_number: '750033129980', billing_unit: '7503', meter_number: 'OD02117731', connection_type: 'Commercial', sanctioned_load_kw: '5', current_holder_name: 'Utkal Weavers Society', new_holder_name: 'ସୁଭଶ୍ରୀ ମହାପାତ୍ର', reason_for_change: 'Sale of property', date_of_transfer: '2026-09-03', id_proof_type: 'Voter ID card', id_proof_number: 'ODX5512093', new_holder_mobile: '9437012290', new_holder_email: 'handloomhouse@example.in', supply_address_line_1: 'Plot 12, Ekamra Haat Road', supply_address_line_2: 'Unit 3', supply_city: 'Bhubaneswar', supply_pincode: '751001', billing_same_as_supply: true, transfer_security_deposit: true, paperless_billing: false },
  },
];

// ---- tax: monthly professional-tax return ------------------------------------------------------

/** A tax case: tax_payable is the slab total, as the portal checks it. */
function tax(c) {
  const fields = { ...c.fields };
  fields.tax_payable = taxDue(fields);
  // Keep the portal's field order (the file reads like the form).
  const ordered = {};
  for (const key of Object.keys(ALIASES.tax)) if (key in fields) ordered[key] = fields[key];
  return { ...c, fields: ordered };
}

const TAX = [
  tax({
    clientId: 'pune-precision-tools', slug: 'pune-precision-tools-jul-2026',
    note: 'July return; letters go to the accountant’s office (two addresses).',
    fields: { ptrc_number: '27551098234P', employer_name: 'Pune Precision Tools Private Limited', employer_pan: 'AAGCP4471M', gstin: '27AAGCP4471M1ZT', return_period: 'July 2026', return_type: 'Original', establishment_address_line_1: 'Gat No. 112, Chakan MIDC Phase II', establishment_address_line_2: 'Khed Taluka', establishment_city: 'Pune', establishment_pincode: '410501', communication_same_as_establishment: false, communication_address_line_1: 'Office 503, Kumar Business Centre, Bund Garden Road', communication_address_line_2: 'Camp', communication_city: 'Pune', communication_pincode: '411001', employees_not_liable: '4', employees_taxed_at_175: '6', employees_taxed_at_200: '41', payment_mode: 'Net banking', payment_date: '2026-08-28', challan_number: 'MHPT2608280044127', signatory_name: 'Sunil Bhosale', signatory_designation: 'Director' },
  }),
  tax({
    clientId: 'nashik-grapes-coop', slug: 'nashik-grapes-coop-aug-2026',
    note: 'August return of a co-operative; letters to its registered office in another town.',
    fields: { ptrc_number: '27559011234P', employer_name: 'Nashik Grape Growers Co-operative Society Limited', employer_pan: 'AAAAN5521B', return_period: 'August 2026', return_type: 'Original', establishment_address_line_1: 'Cold Store Complex, Pimpalgaon Baswant', establishment_address_line_2: 'Niphad Taluka', establishment_city: 'Nashik', establishment_pincode: '422209', communication_same_as_establishment: false, communication_address_line_1: 'Sahakar Bhavan, Main Road', communication_address_line_2: 'Near Tehsil Office', communication_city: 'Niphad', communication_pincode: '422303', employees_not_liable: '12', employees_taxed_at_175: '9', employees_taxed_at_200: '14', payment_mode: 'Challan at bank', payment_date: '2026-09-29', challan_number: '0510308290926000412', signatory_name: 'Dattatray Kadam', signatory_designation: 'Manager' },
  }),
  tax({
    clientId: 'blue-lotus-hotels', slug: 'blue-lotus-hotels-sep-2026',
    note: 'September return of a hotel; letters to the partners’ office. Paid by UPI.',
    fields: { ptrc_number: '27552200871P', employer_name: 'Blue Lotus Hotels and Resorts', employer_pan: 'AAIFB2290L', gstin: '27AAIFB2290L1Z4', return_period: 'September 2026', return_type: 'Original', establishment_address_line_1: 'Survey No. 44, Lonavala Khandala Road', establishment_city: 'Lonavala', establishment_pincode: '410401', communication_same_as_establishment: false, communication_address_line_1: '12, Hill Road', communication_address_line_2: 'Bandra West', communication_city: 'Mumbai', communication_pincode: '400050', employees_not_liable: '7', employees_taxed_at_175: '18', employees_taxed_at_200: '26', payment_mode: 'UPI', payment_date: '2026-10-27', challan_number: 'UTR627101188342', signatory_name: 'Zubin Irani', signatory_designation: 'Partner' },
  }),
  tax({
    clientId: 'konkan-cashew', slug: 'konkan-cashew-oct-2026',
    note: 'October return; factory and office in different towns.',
    fields: { ptrc_number: '27553344120P', employer_name: 'Konkan Cashew Processors', employer_pan: 'AAPFK8812D', return_period: 'October 2026', return_type: 'Original', establishment_address_line_1: 'Plot A-7, MIDC Kudal', establishment_city: 'Sindhudurg', establishment_pincode: '416520', communication_same_as_establishment: false, communication_address_line_1: '3, Maruti Mandir Road', communication_address_line_2: 'Near ST Stand', communication_city: 'Ratnagiri', communication_pincode: '415612', employees_not_liable: '31', employees_taxed_at_175: '4', employees_taxed_at_200: '3', payment_mode: 'Net banking', payment_date: '2026-11-25', challan_number: 'MHPT2611250081930', signatory_name: 'Vinayak Sawant', signatory_designation: 'Proprietor' },
  }),
  tax({
    clientId: 'thane-logistics', slug: 'thane-logistics-apr-2026',
    note: 'April return (the first month of the year); letters to the office, "same as establishment address".',
    fields: { ptrc_number: '27550077345P', employer_name: 'Thane Logistics Hub LLP', employer_pan: 'AAXFT2201C', gstin: '27AAXFT2201C1ZK', return_period: 'April 2026', return_type: 'Original', establishment_address_line_1: 'Warehouse 4, Bhiwandi Logistics Park', establishment_address_line_2: 'Mankoli Naka', establishment_city: 'Bhiwandi', establishment_pincode: '421302', communication_same_as_establishment: true, employees_not_liable: '10', employees_taxed_at_175: '22', employees_taxed_at_200: '58', payment_mode: 'Net banking', payment_date: '2026-05-30', challan_number: 'MHPT2605300019921', signatory_name: 'Neha Agarwal', signatory_designation: 'Partner' },
  }),
  tax({
    clientId: 'aurangabad-auto-parts', slug: 'aurangabad-auto-parts-may-2026',
    note: 'May return; "same as establishment address", and the office’s export repeats the address for letters.',
    fields: { ptrc_number: '27556612098P', employer_name: 'Aurangabad Auto Components', employer_pan: 'AAHFA6610N', return_period: 'May 2026', return_type: 'Original', establishment_address_line_1: 'E-22, MIDC Waluj', establishment_address_line_2: 'Bajaj Nagar', establishment_city: 'Chhatrapati Sambhajinagar', establishment_pincode: '431136', communication_same_as_establishment: true, communication_address_line_1: 'E-22, MIDC Waluj', communication_address_line_2: 'Bajaj Nagar', communication_city: 'Chhatrapati Sambhajinagar', communication_pincode: '431136', employees_not_liable: '2', employees_taxed_at_175: '11', employees_taxed_at_200: '37', payment_mode: 'Challan at bank', payment_date: '2026-06-26', challan_number: '0002390260626004411', signatory_name: 'Rahul Jadhav', signatory_designation: 'Director' },
  }),
  tax({
    clientId: 'solapur-chaddar', slug: 'solapur-chaddar-jun-2026',
    note: 'June return of a small weaver: only two staff taxed at ₹175, letters to the workshop.',
    fields: { ptrc_number: '27557788001P', employer_name: 'Solapur Chaddar Weaving Works', employer_pan: 'ACKPS1109F', return_period: 'June 2026', return_type: 'Original', establishment_address_line_1: '211, Datta Chowk', establishment_address_line_2: 'Navi Peth', establishment_city: 'Solapur', establishment_pincode: '413002', communication_same_as_establishment: true, employees_not_liable: '6', employees_taxed_at_175: '2', employees_taxed_at_200: '0', payment_mode: 'UPI', payment_date: '2026-07-20', challan_number: 'UTR620077123456', signatory_name: 'Mallikarjun Shetty', signatory_designation: 'Proprietor' },
  }),
  tax({
    clientId: 'marathi-sahitya-prakashan', slug: 'marathi-sahitya-prakashan-jul-2026',
    note: 'Employer and signatory names in Devanagari (Marathi), as on the registration certificate. Letters to the office.',
    fields: { ptrc_number: '27554400981P', employer_name: 'मराठी साहित्य प्रकाशन', employer_pan: 'AAJFM3321P', return_period: 'July 2026', return_type: 'Original', establishment_address_line_1: '1204, Sadashiv Peth', establishment_address_line_2: 'Near Bhave School', establishment_city: 'Pune', establishment_pincode: '411030', communication_same_as_establishment: true, employees_not_liable: '1', employees_taxed_at_175: '3', employees_taxed_at_200: '5', payment_mode: 'Net banking', payment_date: '2026-08-17', challan_number: 'MHPT2608170007718', signatory_name: 'अनिल गोखले', signatory_designation: 'Partner' },
  }),
  tax({
    clientId: 'chettinad-spices', slug: 'chettinad-spices-aug-2026',
    note: 'Employer name and letters address line 1 in Tamil script; two addresses.',
    fields: { ptrc_number: '33551200873P', employer_name: 'செட்டிநாடு மசாலா நிறுவனம்', employer_pan: 'AAKFC7730G', gstin: '33AAKFC7730G1ZV', return_period: 'August 2026', return_type: 'Original', establishment_address_line_1: '14, Karaikudi Main Road', establishment_city: 'Karaikudi', establishment_pincode: '630001', communication_same_as_establishment: false, communication_address_line_1: '9, வடக்கு ரத வீதி', communication_address_line_2: 'Devakottai', communication_city: 'Sivaganga', communication_pincode: '630302', employees_not_liable: '3', employees_taxed_at_175: '5', employees_taxed_at_200: '8', payment_mode: 'Challan at bank', payment_date: '2026-09-21', challan_number: 'TNPT2609210033190', signatory_name: 'Meenal Chettiar', signatory_designation: 'Partner' },
  }),
  tax({
    clientId: 'goa-cafe-sao-tome', slug: 'goa-cafe-sao-tome-sep-2026',
    note: 'Accented Latin in the employer and signatory names (São Tomé, Gonçalves). Letters to the café.',
    fields: { ptrc_number: '30550012897P', employer_name: 'Café São Tomé and Bakery', employer_pan: 'ABMFC5512H', return_period: 'September 2026', return_type: 'Original', establishment_address_line_1: 'Rua de Ourém, Fontainhas', establishment_city: 'Panaji', establishment_pincode: '403001', communication_same_as_establishment: true, employees_not_liable: '2', employees_taxed_at_175: '4', employees_taxed_at_200: '3', payment_mode: 'UPI', payment_date: '2026-10-12', challan_number: 'UTR610128839001', signatory_name: 'Inês Gonçalves', signatory_designation: 'Proprietor' },
  }),
  tax({
    clientId: 'kannada-school-trust', slug: 'kannada-school-trust-oct-2026',
    note: 'Employer name in Kannada script; the signatory in Latin. Two addresses.',
    fields: { ptrc_number: '29550033442P', employer_name: 'ಕನ್ನಡ ವಿದ್ಯಾ ಸಂಸ್ಥೆ ಟ್ರಸ್ಟ್', employer_pan: 'AAATK4412E', return_period: 'October 2026', return_type: 'Original', establishment_address_line_1: '45, Chamarajapuram', establishment_address_line_2: 'Near Ramaswamy Circle', establishment_city: 'Mysuru', establishment_pincode: '570005', communication_same_as_establishment: false, communication_address_line_1: '7, Trust Office, Gokulam 3rd Stage', communication_city: 'Mysuru', communication_pincode: '570002', employees_not_liable: '5', employees_taxed_at_175: '12', employees_taxed_at_200: '21', payment_mode: 'Net banking', payment_date: '2026-11-24', challan_number: 'KAPT2611240012288', signatory_name: 'Shankar Hegde', signatory_designation: 'Manager' },
  }),
  tax({
    clientId: 'nagpur-oranges', slug: 'nagpur-oranges-nov-2026',
    note: 'Not registered for GST and no address line 2: optional fields left out. November return paid on 1 December.',
    fields: { ptrc_number: '27558800213P', employer_name: 'Nagpur Orange Traders', employer_pan: 'AEKPN2231Q', return_period: 'November 2026', return_type: 'Original', establishment_address_line_1: 'Shop 17, Kalamna Market Yard', establishment_city: 'Nagpur', establishment_pincode: '440035', communication_same_as_establishment: true, employees_not_liable: '3', employees_taxed_at_175: '2', employees_taxed_at_200: '1', payment_mode: 'UPI', payment_date: '2026-12-01', challan_number: 'UTR612011100223', signatory_name: 'Pravin Wankhede', signatory_designation: 'Proprietor' },
  }),
  tax({
    clientId: 'kolhapur-jaggery', slug: 'kolhapur-jaggery-sep-2026',
    note: 'Optional fields given as empty strings (GSTIN, interest, address lines 2); two addresses.',
    fields: { ptrc_number: '27556600412P', employer_name: 'Kolhapur Jaggery Udyog', employer_pan: 'AAJFK9021R', gstin: '', return_period: 'September 2026', return_type: 'Original', establishment_address_line_1: 'Gat No. 77, Shiroli MIDC', establishment_address_line_2: '', establishment_city: 'Kolhapur', establishment_pincode: '416122', communication_same_as_establishment: false, communication_address_line_1: '2114, E Ward, Shahupuri', communication_address_line_2: '', communication_city: 'Kolhapur', communication_pincode: '416001', employees_not_liable: '8', employees_taxed_at_175: '3', employees_taxed_at_200: '6', interest_amount: '', payment_mode: 'Challan at bank', payment_date: '2026-10-30', challan_number: '0510308301026001277', signatory_name: 'Yashwant Patil', signatory_designation: 'Partner' },
  }),
  tax({
    clientId: 'latur-dal-mill', slug: 'latur-dal-mill-jun-2026',
    note: 'Revised June return, paid late with ₹120 interest; letters to the mill.',
    fields: { ptrc_number: '27559900781P', employer_name: 'Latur Dal Mill', employer_pan: 'AAKPL7719S', return_period: 'June 2026', return_type: 'Revised', establishment_address_line_1: 'Plot 9, MIDC Latur', establishment_address_line_2: 'Barshi Road', establishment_city: 'Latur', establishment_pincode: '413531', communication_same_as_establishment: true, employees_not_liable: '4', employees_taxed_at_175: '3', employees_taxed_at_200: '9', interest_amount: '120', payment_mode: 'Net banking', payment_date: '2026-08-11', challan_number: 'MHPT2608110093301', signatory_name: 'Anand Deshpande', signatory_designation: 'Proprietor' },
  }),
  tax({
    clientId: 'mumbai-design-studio', slug: 'mumbai-design-studio-oct-2026',
    note: 'The portal’s PAN look-up fails on the first try and empties the field; the PAN is typed again from the file.',
    lab: { rejectFieldOnce: 'employer_pan' },
    fields: { ptrc_number: '27551122909P', employer_name: 'Mumbai Design Studio LLP', employer_pan: 'AAUFM8841K', gstin: '27AAUFM8841K1Z2', return_period: 'October 2026', return_type: 'Original', establishment_address_line_1: 'Unit 12, Todi Mill Compound', establishment_address_line_2: 'Lower Parel', establishment_city: 'Mumbai', establishment_pincode: '400013', communication_same_as_establishment: true, employees_not_liable: '0', employees_taxed_at_175: '2', employees_taxed_at_200: '17', payment_mode: 'UPI', payment_date: '2026-11-18', challan_number: 'UTR611180042291', signatory_name: 'Ira Mehta', signatory_designation: 'Partner' },
  }),
  tax({
    clientId: 'satara-milk-dairy', slug: 'satara-milk-dairy-nov-2026',
    note: 'GSTIN look-up fails once (field emptied); two addresses.',
    lab: { rejectFieldOnce: 'gstin' },
    fields: { ptrc_number: '27553399012P', employer_name: 'Satara Milk Dairy Private Limited', employer_pan: 'AAHCS3380F', gstin: '27AAHCS3380F1ZN', return_period: 'November 2026', return_type: 'Original', establishment_address_line_1: 'Dairy Plant, Old MIDC', establishment_city: 'Satara', establishment_pincode: '415004', communication_same_as_establishment: false, communication_address_line_1: '501, Shivaji Circle', communication_address_line_2: 'Rajwada', communication_city: 'Satara', communication_pincode: '415002', employees_not_liable: '15', employees_taxed_at_175: '20', employees_taxed_at_200: '44', payment_mode: 'Net banking', payment_date: '2026-12-02', challan_number: 'MHPT2612020004412', signatory_name: 'Sachin Pawar', signatory_designation: 'Director' },
  }),
  tax({
    clientId: 'deccan-infra-consultants', slug: 'deccan-infra-consultants-aug-2026',
    note: 'Employer name at the 100-character limit; letters address line 1 at 100 characters.',
    fields: {
      ptrc_number: '27552244668P', employer_name: atLimit('Deccan Infrastructure Engineering and Project Management Consultants (India) Private Ltd., Pune Unit', 100), employer_pan: 'AAECD5567L', gstin: '27AAECD5567L1ZP', return_period: 'August 2026', return_type: 'Original', establishment_address_line_1: 'Level 6, Nyati Unitree, Nagar Road', establishment_address_line_2: 'Yerawada', establishment_city: 'Pune', establishment_pincode: '411006', communication_same_as_establishment: false,
      communication_address_line_1: atLimit('Accounts Department, 2nd Floor, Shreeram Complex, 1187/23 Shivajinagar, Ghole Road, Near Police Stn.', 100), communication_city: 'Pune', communication_pincode: '411005', employees_not_liable: '0', employees_taxed_at_175: '1', employees_taxed_at_200: '62', payment_mode: 'Net banking', payment_date: '2026-09-24', challan_number: 'MHPT2609240071100', signatory_name: 'Rohini Kulkarni', signatory_designation: 'Accountant',
    },
  }),
  tax({
    clientId: 'shree-balaji-textiles', slug: 'shree-balaji-textiles-jul-2026',
    note: 'Signatory name at the 80-character limit; establishment city at 50; letters to the mill.',
    fields: {
      ptrc_number: '27557700345P', employer_name: 'Shree Balaji Textile Mills', employer_pan: 'AAFCS6612B', return_period: 'July 2026', return_type: 'Original', establishment_address_line_1: 'Plot 88, Textile Park', establishment_address_line_2: 'Rui', establishment_city: atLimit('Ichalkaranji Municipal Council Area, Kolhapur Dist', 50), establishment_pincode: '416115', communication_same_as_establishment: true, employees_not_liable: '40', employees_taxed_at_175: '25', employees_taxed_at_200: '33', payment_mode: 'Challan at bank', payment_date: '2026-08-31', challan_number: '0510308310826009981',
      signatory_name: atLimit('Venkateshwara Balasubramaniam Ramakrishnan Iyer Subramanya Sastri Chandrashekhar', 80), signatory_designation: 'Director',
    },
  }),
  tax({
    clientId: 'hindustan-kala-kendra', slug: 'hindustan-kala-kendra-sep-2026',
    note: 'Employer name in Devanagari at the 100-character limit; interest ₹45 for late payment.',
    fields: {
      ptrc_number: '27550066129P', employer_name: atLimit('हिंदुस्तान कला केंद्र एवं सांस्कृतिक शिक्षा संस्थान, नागपुर (संगीत, नृत्य एवं नाट्य प्रशिक्षण विभाग)', 100), employer_pan: 'AAATH5520C', return_period: 'September 2026', return_type: 'Original', establishment_address_line_1: '22, Dharampeth Extension', establishment_city: 'Nagpur', establishment_pincode: '440010', communication_same_as_establishment: true, employees_not_liable: '6', employees_taxed_at_175: '3', employees_taxed_at_200: '2', interest_amount: '45', payment_mode: 'UPI', payment_date: '2026-11-03', challan_number: 'UTR611030091182', signatory_name: 'Madhavi Deshpande', signatory_designation: 'Manager',
    },
  }),
  tax({
    clientId: 'sahyadri-organics', slug: 'sahyadri-organics-nov-2026',
    note: 'Revised November return; PAN look-up fails once; no GSTIN.',
    lab: { rejectFieldOnce: 'employer_pan' },
    fields: { ptrc_number: '27558811023P', employer_name: 'Sahyadri Organics', employer_pan: 'ADSPS4471G', return_period: 'November 2026', return_type: 'Revised', establishment_address_line_1: 'Farm Office, Wai Road', establishment_address_line_2: 'Panchgani', establishment_city: 'Satara', establishment_pincode: '412805', communication_same_as_establishment: true, employees_not_liable: '9', employees_taxed_at_175: '2', employees_taxed_at_200: '4', payment_mode: 'UPI', payment_date: '2026-12-02', challan_number: 'UTR612020031177', signatory_name: 'Ashwini Shinde', signatory_designation: 'Proprietor' },
  }),
];

// ---- writing -----------------------------------------------------------------------------------

const PREFIX = { shops: 'shops-renewal', power: 'power-name-change', tax: 'tax-return' };

function caseFile(portal, c) {
  const aliases = Object.fromEntries(Object.entries(ALIASES[portal]).filter(([key]) => key in c.fields));
  return {
    caseId: `eval-${PREFIX[portal]}-${c.slug}`,
    clientId: `eval-${c.clientId}`,
    portal,
    task: TASKS[portal],
    fields: c.fields,
    aliases,
    declarations: DECLARATIONS[portal],
    note: c.note,
  };
}

/** What makes a case tricky, read from its data (the table's columns). */
function traits(portal, file, lab) {
  const f = file.fields;
  const sameAs = SAME_AS[portal];
  const out = [];
  out.push(f[sameAs] === true ? 'same as' : 'two addresses');
  const nonAscii = Object.entries(f).filter(([, v]) => typeof v === 'string' && /[^\x00-\x7F’]/.test(v)).map(([k]) => k);
  if (nonAscii.length) out.push(`non-ASCII: ${nonAscii.join(', ')}`);
  // With "same as" ticked the portal copies the target address: its optional line is not "left empty".
  const copied = f[sameAs] === true ? `${sameAs.split('_same_as_')[0]}_` : null;
  const empty = OPTIONAL[portal].filter((k) => (!(k in f) || f[k] === '') && !(copied && k.startsWith(copied)));
  const explicit = empty.filter((k) => f[k] === '');
  if (empty.length) out.push(`empty: ${empty.join(', ')}${explicit.length ? ` ("" given: ${explicit.length})` : ''}`);
  const atMax = Object.entries(MAX[portal]).filter(([k, n]) => typeof f[k] === 'string' && f[k].length === n).map(([k, n]) => `${k} (${n})`);
  if (atMax.length) out.push(`at limit: ${atMax.join(', ')}`);
  if (lab?.rejectFieldOnce) out.push(`first try rejected: ${lab.rejectFieldOnce}`);
  return out;
}

const all = [
  ...SHOPS.map((c) => ['shops', c]),
  ...POWER.map((c) => ['power', c]),
  ...TAX.map((c) => ['tax', c]),
];
const files = all.map(([portal, c]) => ({ portal, file: caseFile(portal, c), lab: c.lab }));
const ids = new Set(files.map((f) => f.file.clientId));
if (ids.size !== files.length) throw new Error('two cases share a client id');

if (process.argv.includes('--table')) {
  console.log('| # | case | portal | what is tricky |');
  console.log('|---|---|---|---|');
  files.forEach(({ portal, file, lab }, i) => console.log(`| ${i + 1} | \`${file.caseId}\` | ${portal} | ${traits(portal, file, lab).join('; ')} |`));
} else {
  rmSync(CASES_DIR, { recursive: true, force: true });
  mkdirSync(CASES_DIR, { recursive: true });
  for (const { file } of files) writeFileSync(join(CASES_DIR, `${file.caseId}.json`), `${JSON.stringify(file, null, 2)}\n`);
  const setup = Object.fromEntries(files.filter((f) => f.lab).map((f) => [f.file.caseId, f.lab]));
  writeFileSync(
    join(HERE, 'lab-setup.json'),
    `${JSON.stringify({ $comment: 'Lab variant settings a case adds to every variant it runs on (src/lab/variants.ts). Written by make-cases.mjs.', cases: setup }, null, 2)}\n`,
  );
  console.log(`wrote ${files.length} case files to ${CASES_DIR} (${readdirSync(CASES_DIR).length} there), ${Object.keys(setup).length} lab set-ups`);
}
