// The workplace evaluation set, written for this project: thirteen documents of the kinds people upload (policies, a
// manual, FAQs, a runbook, a contract, release notes, a price list), in the formats search reads, from a few hundred
// characters to several pages. Questions are mostly paraphrases that share few words with the passage; unanswerable
// ones ask about neighbouring topics the documents do not cover. A question's `answer` is a phrase found once in its
// document: a result answers it when it comes from that document and holds the phrase.
import type { SupportedMimeType } from '../../functions/documents/limits.js';

export interface EvalSection {
  heading: string;
  paragraphs: string[];
}

export interface EvalDocument {
  id: string;
  filename: string;
  mimeType: SupportedMimeType;
  sections: EvalSection[];
}

export interface AnswerableQuestion {
  question: string;
  documentId: string;
  answer: string;
}

export interface UnanswerableQuestion {
  question: string;
  documentId?: undefined;
}

export type EvalQuestion = AnswerableQuestion | UnanswerableQuestion;

export const workplaceDocuments: EvalDocument[] = [
  {
    id: 'leave-policy',
    filename: 'leave-and-remote-work.md',
    mimeType: 'text/markdown',
    sections: [
      {
        heading: 'Annual leave',
        paragraphs: [
          'Every full-time employee accrues 26 days of paid annual leave per calendar year, earned evenly month by month. Part-time staff accrue leave in proportion to their contracted hours.',
          'Up to five unused days may be moved into the next year; they lapse if not taken by 31 March. Leave requests go through the people portal and need approval from your line manager at least ten working days in advance.',
        ],
      },
      {
        heading: 'Sick leave',
        paragraphs: [
          'If you are unwell, tell your manager before 10 am on the first day of absence. For absences longer than three consecutive days we need a note from a doctor. Sick days do not reduce your annual leave balance.',
        ],
      },
      {
        heading: 'Parental leave',
        paragraphs: [
          'Birth parents receive 20 weeks of leave on full pay. Partners and adoptive parents receive 8 weeks on full pay, which can be taken in up to three blocks during the first year after the child arrives.',
        ],
      },
      {
        heading: 'Remote work',
        paragraphs: [
          'Staff may work from home up to three days per week, agreed with their team. Working from another country is allowed for at most 30 days per year and must be registered in advance because of tax and insurance rules.',
          'The company pays a one-off home office allowance of 400 euros for a desk, chair or monitor, claimed with a receipt within your first six months.',
        ],
      },
    ],
  },
  {
    id: 'travel-policy',
    filename: 'travel-and-expenses-policy.pdf',
    mimeType: 'application/pdf',
    sections: [
      {
        heading: 'Booking travel',
        paragraphs: [
          'All business trips are booked through the travel desk, which holds our negotiated rates. Trips abroad need written approval from a director before anything is booked.',
          'Rail is the default for journeys under four hours. Flights are booked in economy class; business class is allowed only for flights longer than eight hours.',
        ],
      },
      {
        heading: 'Hotels and meals',
        paragraphs: [
          'Hotels may cost up to 160 euros per night in most cities and up to 230 euros in London, Paris, New York and Zurich. Breakfast is included in the room rate where possible.',
          'A daily meal allowance of 45 euros covers lunch and dinner while travelling. Alcohol is not reimbursed, except at client dinners approved beforehand.',
        ],
      },
      {
        heading: 'Local transport',
        paragraphs: [
          'Public transport is preferred. Taxis and ride-hailing are reimbursed late at night, when carrying equipment, or when no public option exists. Using your own car is paid at 0.30 euros per kilometre.',
        ],
      },
      {
        heading: 'Claiming expenses',
        paragraphs: [
          'Submit each claim in the expense tool within 60 days of the spend, with a photo of every receipt. Claims are checked by finance and paid with the next monthly salary.',
          'Lost receipts can be replaced by a signed declaration up to twice a year. Claims submitted after 60 days are refused unless your director approves an exception.',
        ],
      },
      {
        heading: 'Corporate cards',
        paragraphs: [
          'Employees who travel more than six times a year can request a corporate card. Personal purchases on the card are not allowed, and any such charge must be repaid within 14 days.',
        ],
      },
    ],
  },
  {
    id: 'purifier-manual',
    filename: 'aeris-air-purifier-manual.docx',
    mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    sections: [
      {
        heading: 'Getting started',
        paragraphs: [
          'Place the Aeris 3 on a flat surface at least 30 centimetres from walls and curtains so air can flow freely into the intake at the back. Remove the plastic bag from the filter before first use.',
          'Plug in the power cord and press the round button on top once. The ring light turns white while the purifier measures the air for the first minute.',
        ],
      },
      {
        heading: 'Fan speeds and modes',
        paragraphs: [
          'Press the fan button to cycle through speeds one to four. In automatic mode the purifier chooses the speed from the particle sensor. Night mode dims all lights and keeps the fan at the quietest level.',
        ],
      },
      {
        heading: 'Replacing the filter',
        paragraphs: [
          'The combined HEPA and carbon filter lasts about twelve months in normal use. When the filter indicator glows red, switch off the unit, open the back cover, pull the old filter out by its tab and slide the new one in with the arrows facing the fan.',
          'After fitting a new filter, hold the filter button for five seconds to reset the reminder.',
        ],
      },
      {
        heading: 'Cleaning',
        paragraphs: [
          'Wipe the outside with a dry, soft cloth. Vacuum the pre-filter mesh every two weeks to remove dust and pet hair. Never wash the main filter with water, as this destroys it.',
        ],
      },
      {
        heading: 'Troubleshooting',
        paragraphs: [
          'If the ring light stays orange even in clean rooms, the air quality sensor window is probably dusty: clean it with a cotton swab. If the unit makes a rattling noise, check that the filter is seated correctly and the back cover is closed.',
          'If the purifier does not turn on, try another socket and check that the cover is fully closed; a safety switch stops the fan while the cover is open.',
        ],
      },
      {
        heading: 'Warranty',
        paragraphs: [
          'The Aeris 3 comes with a two-year warranty against manufacturing defects. Filters are consumables and are not covered. Register the product online to extend the warranty by one year.',
        ],
      },
    ],
  },
  {
    id: 'billing-faq',
    filename: 'billing-faq.html',
    mimeType: 'text/html',
    sections: [
      {
        heading: 'Which payment methods do you accept?',
        paragraphs: [
          'We accept Visa, Mastercard and American Express, as well as SEPA direct debit for customers in the euro area. Annual plans can also be paid by bank transfer against an invoice.',
        ],
      },
      {
        heading: 'When am I charged?',
        paragraphs: [
          'Subscriptions renew automatically and are charged on the same day each month as the original sign-up. If that day does not exist in a month, the charge happens on its last day.',
        ],
      },
      {
        heading: 'Can I change plans?',
        paragraphs: [
          'Upgrades take effect immediately and the difference is prorated for the rest of the billing period. Downgrades take effect at the start of the next period, so you keep your current features until then.',
        ],
      },
      {
        heading: 'What happens if a payment fails?',
        paragraphs: [
          'We retry a failed card payment three times over seven days and email the account owner each time. If all retries fail, the workspace becomes read-only until the balance is paid; no data is deleted.',
        ],
      },
      {
        heading: 'How do I cancel?',
        paragraphs: [
          'Owners can cancel at any time under Settings, Billing. The subscription stays active until the end of the paid period and is not refunded pro rata, except within 14 days of the first purchase.',
        ],
      },
      {
        heading: 'Do you charge VAT?',
        paragraphs: [
          'Prices are shown without VAT. Businesses in the EU that enter a valid VAT number are billed under the reverse-charge rule; everyone else pays the VAT rate of their country.',
        ],
      },
    ],
  },
  {
    id: 'failover-runbook',
    filename: 'database-failover-runbook.md',
    mimeType: 'text/markdown',
    sections: [
      {
        heading: 'When to use this runbook',
        paragraphs: [
          'Use this runbook when the primary PostgreSQL instance of the orders cluster is unreachable for more than two minutes, or when the on-call engineer is paged by the alert orders-db-primary-down.',
        ],
      },
      {
        heading: 'Step 1: Confirm the outage',
        paragraphs: [
          'Check the database dashboard for replication lag and connection errors. Run the health check script from the bastion host; if it reports the primary as down from two availability zones, the outage is real and not a network blip.',
        ],
      },
      {
        heading: 'Step 2: Promote the replica',
        paragraphs: [
          'Announce the failover in the incident channel. Promote the standby in the second zone with the promote command of the cluster tool; promotion normally completes in under 60 seconds. Never promote a replica whose lag exceeds 30 seconds without approval from the database lead, since recent orders would be lost.',
        ],
      },
      {
        heading: 'Step 3: Repoint the applications',
        paragraphs: [
          'Update the DNS record orders-db.internal to the new primary and restart the order service pods in a rolling fashion. Confirm that writes succeed by placing a test order with the synthetic customer account.',
        ],
      },
      {
        heading: 'Step 4: Afterwards',
        paragraphs: [
          'Rebuild a new replica from the latest snapshot so the cluster is redundant again, which takes about 40 minutes. Write the incident report within two working days and schedule the review meeting.',
        ],
      },
    ],
  },
  {
    id: 'service-agreement',
    filename: 'master-services-agreement.txt',
    mimeType: 'text/plain',
    sections: [
      {
        heading: '1. Term',
        paragraphs: [
          'This agreement begins on the effective date and runs for an initial term of 24 months. It then renews for successive periods of 12 months unless either party gives written notice of non-renewal at least 90 days before the end of the current term.',
        ],
      },
      {
        heading: '2. Fees and payment',
        paragraphs: [
          'The customer pays the fees set out in each order form. Invoices are payable within 30 days of the invoice date. Amounts not paid when due bear interest at 1 percent per month, and the provider may suspend the services after giving 15 days notice.',
        ],
      },
      {
        heading: '3. Service levels',
        paragraphs: [
          'The provider will make the services available 99.9 percent of each calendar month, excluding scheduled maintenance announced at least 48 hours ahead. If availability falls short, the customer receives a service credit of 10 percent of the monthly fee for each full 0.5 percent below the target, up to half the monthly fee.',
        ],
      },
      {
        heading: '4. Confidentiality',
        paragraphs: [
          "Each party keeps the other party's confidential information secret and uses it only to perform this agreement. These obligations survive for five years after the agreement ends.",
        ],
      },
      {
        heading: '5. Liability',
        paragraphs: [
          "Neither party is liable for indirect or consequential losses. Each party's total liability in any year is capped at the fees paid by the customer in the twelve months before the claim, except for breaches of confidentiality and payment obligations.",
        ],
      },
      {
        heading: '6. Termination',
        paragraphs: [
          "Either party may end the agreement immediately if the other commits a material breach and does not remedy it within 30 days of being told. On termination the provider makes the customer's data available for export for 60 days and then deletes it.",
        ],
      },
    ],
  },
  {
    id: 'engineering-onboarding',
    filename: 'engineering-onboarding.md',
    mimeType: 'text/markdown',
    sections: [
      {
        heading: 'Your first week',
        paragraphs: [
          'On your first day you collect your laptop from the IT desk on the second floor and meet your onboarding buddy, who answers questions during your first month. By Friday you should have shipped a small change to production.',
        ],
      },
      {
        heading: 'Access and accounts',
        paragraphs: [
          'Request access to the source repositories, the cloud console and the on-call tool through the access portal. Production access is granted only after you complete the security training, usually in your second week.',
        ],
      },
      {
        heading: 'Development workflow',
        paragraphs: [
          'Every change goes through a pull request reviewed by at least one other engineer. The main branch deploys automatically after the test suite passes; feature flags hide unfinished work from customers.',
        ],
      },
      {
        heading: 'On-call',
        paragraphs: [
          'Engineers join the on-call rotation after three months. A shift lasts one week, and each shift is paid a fixed supplement plus time off in lieu for any night call-outs.',
        ],
      },
    ],
  },
  {
    id: 'security-policy',
    filename: 'information-security-policy.html',
    mimeType: 'text/html',
    sections: [
      {
        heading: 'Passwords',
        paragraphs: [
          'Passwords must be at least 14 characters long and unique to each service. Use the company password manager to generate and store them; never write passwords down or share them, not even with IT staff.',
        ],
      },
      {
        heading: 'Devices',
        paragraphs: [
          'Company laptops must have full-disk encryption and automatic screen lock after five minutes of inactivity. Personal phones may access email only after the device management profile is installed.',
        ],
      },
      {
        heading: 'Reporting incidents',
        paragraphs: [
          'Report a lost or stolen device, a suspicious email or any suspected data leak to the security team within one hour by writing to the security hotline channel. Do not try to investigate a phishing email yourself by clicking its links.',
        ],
      },
      {
        heading: 'Visitors',
        paragraphs: [
          'Visitors sign in at reception, wear a visible badge and are accompanied by their host at all times. Visitors are not allowed in the server room.',
        ],
      },
    ],
  },
  {
    id: 'shop-returns',
    filename: 'shipping-and-returns.txt',
    mimeType: 'text/plain',
    sections: [
      {
        heading: 'Delivery',
        paragraphs: [
          'Orders placed before 2 pm on a working day leave our warehouse the same day. Standard delivery takes two to four working days and is free for orders above 50 euros; express delivery the next working day costs 9.90 euros.',
        ],
      },
      {
        heading: 'Returns',
        paragraphs: [
          'You can send items back within 45 days of receiving them, unworn and with their labels attached. Print the prepaid label from your account and drop the parcel at any partner shop. Underwear and swimwear cannot be returned for hygiene reasons.',
        ],
      },
      {
        heading: 'Refunds',
        paragraphs: [
          'Once the parcel reaches us we inspect it within three days, and the money is sent back to the card or account you paid with. Gift cards are refunded as store credit.',
        ],
      },
      {
        heading: 'Damaged goods',
        paragraphs: ['If something arrives broken, send us a photo within seven days and we will replace it or refund it, including the shipping costs.'],
      },
    ],
  },
  {
    id: 'release-notes',
    filename: 'release-notes-4-2.md',
    mimeType: 'text/markdown',
    sections: [
      {
        heading: 'Version 4.2',
        paragraphs: [
          'Dashboards can now be exported as PDF and scheduled to arrive by email every Monday morning. The export keeps your filters and the selected date range.',
          'Single sign-on now supports any SAML 2.0 identity provider, not only the two providers supported before.',
        ],
      },
      {
        heading: 'Fixes',
        paragraphs: [
          'Charts no longer show a gap at the switch to daylight saving time. CSV imports with semicolons as separators are detected automatically.',
        ],
      },
      {
        heading: 'Deprecations',
        paragraphs: ['Version 1 of the reporting API stops working on 30 June; move to version 2, which returns the same data in pages of 500 rows.'],
      },
    ],
  },
  {
    id: 'office-guide',
    filename: 'office-guide.txt',
    mimeType: 'text/plain',
    sections: [
      {
        heading: 'Meeting rooms',
        paragraphs: [
          'Book meeting rooms in the calendar; a booking not checked in on the room tablet within ten minutes is released for others. The large boardroom on the fifth floor seats 20 people and has a video conference system.',
        ],
      },
      {
        heading: 'Kitchen and lunch',
        paragraphs: [
          'Fruit, coffee and tea are free. A hot lunch is served in the canteen from 12 to 2 pm and costs 6 euros with your badge. Please put dishes in the dishwasher, not in the sink.',
        ],
      },
      {
        heading: 'Bicycles',
        paragraphs: ['Bicycles can be left in the locked storage room in the basement; your badge opens it. Showers and lockers are next to the storage room.'],
      },
    ],
  },
  {
    id: 'privacy-notice',
    filename: 'privacy-notice.pdf',
    mimeType: 'application/pdf',
    sections: [
      {
        heading: 'What we collect',
        paragraphs: [
          'We collect the name, email address and company of each user, the content they upload, and technical logs such as IP addresses and browser versions. We do not buy personal data from third parties.',
        ],
      },
      {
        heading: 'How long we keep it',
        paragraphs: [
          'Account data is kept while the account exists and deleted within 30 days after it is closed. Technical logs are kept for 13 months. Invoices are kept for ten years because tax law requires it.',
        ],
      },
      {
        heading: 'Who we share it with',
        paragraphs: [
          'We share data only with processors that help us run the service, such as our hosting provider and our email delivery service, under contracts that bind them to our instructions. We never sell personal data.',
        ],
      },
      {
        heading: 'Your rights',
        paragraphs: [
          'You may ask for a copy of your data, its correction or its deletion by writing to our data protection officer. We answer within one month. You may also complain to your national supervisory authority.',
        ],
      },
    ],
  },
  {
    id: 'price-list',
    filename: 'support-plans.csv',
    mimeType: 'text/csv',
    sections: [
      {
        heading: 'plan,response time,channels,price per month',
        paragraphs: [
          'Basic,two business days,email,free',
          'Business,eight business hours,email and chat,290 euros',
          'Premium,one hour around the clock,"email, chat and phone",1200 euros',
        ],
      },
    ],
  },
];

export const workplaceQuestions: EvalQuestion[] = [
  { question: 'How many days off do I get each year?', documentId: 'leave-policy', answer: '26 days of paid annual leave' },
  { question: 'Can I keep holidays I did not use for next year?', documentId: 'leave-policy', answer: 'Up to five unused days' },
  { question: 'How far ahead must I ask my boss before taking a vacation?', documentId: 'leave-policy', answer: 'ten working days in advance' },
  { question: "Do I need a doctor's certificate when I am ill?", documentId: 'leave-policy', answer: 'note from a doctor' },
  { question: 'How long is maternity leave?', documentId: 'leave-policy', answer: '20 weeks of leave' },
  { question: 'How much time off does a father get when the baby is born?', documentId: 'leave-policy', answer: '8 weeks on full pay' },
  { question: 'How many days a week may I work from my house?', documentId: 'leave-policy', answer: 'three days per week' },
  { question: 'Can I work abroad for a while?', documentId: 'leave-policy', answer: 'at most 30 days per year' },
  { question: 'Will the company pay for my desk chair at home?', documentId: 'leave-policy', answer: 'home office allowance' },
  { question: 'Can I fly business class?', documentId: 'travel-policy', answer: 'longer than eight hours' },
  { question: 'Should I take the train or a plane for short trips?', documentId: 'travel-policy', answer: 'Rail is the default' },
  { question: 'Who has to sign off on an international business trip?', documentId: 'travel-policy', answer: 'approval from a director' },
  { question: 'What is the maximum room rate for accommodation in Paris?', documentId: 'travel-policy', answer: '230 euros' },
  { question: 'How much can I spend on food per day when away on business?', documentId: 'travel-policy', answer: 'meal allowance of 45 euros' },
  { question: 'Is wine at dinner paid back?', documentId: 'travel-policy', answer: 'Alcohol is not reimbursed' },
  { question: 'What is the mileage rate for driving my own vehicle?', documentId: 'travel-policy', answer: '0.30 euros per kilometre' },
  { question: 'What is the deadline for handing in receipts after spending money?', documentId: 'travel-policy', answer: 'within 60 days of the spend' },
  { question: 'I lost a receipt, what can I do?', documentId: 'travel-policy', answer: 'signed declaration' },
  { question: 'Who can get a company credit card?', documentId: 'travel-policy', answer: 'more than six times a year' },
  { question: 'When are taxi rides covered?', documentId: 'travel-policy', answer: 'late at night' },
  { question: 'How far from the wall should the purifier stand?', documentId: 'purifier-manual', answer: '30 centimetres from walls' },
  { question: 'How often does the filter of the air cleaner need changing?', documentId: 'purifier-manual', answer: 'about twelve months' },
  { question: 'How do I swap in a new filter?', documentId: 'purifier-manual', answer: 'pull the old filter out by its tab' },
  { question: 'The filter light is still on after I changed it', documentId: 'purifier-manual', answer: 'hold the filter button for five seconds' },
  { question: 'Can I rinse the filter under the tap?', documentId: 'purifier-manual', answer: 'Never wash the main filter' },
  { question: 'Why is the light ring orange all the time?', documentId: 'purifier-manual', answer: 'sensor window is probably dusty' },
  { question: 'The air purifier will not switch on', documentId: 'purifier-manual', answer: 'try another socket' },
  { question: 'Is there a quiet setting for sleeping?', documentId: 'purifier-manual', answer: 'Night mode' },
  { question: 'How long is the purifier guaranteed?', documentId: 'purifier-manual', answer: 'two-year warranty' },
  { question: 'Can I pay with a credit card or a direct debit?', documentId: 'billing-faq', answer: 'SEPA direct debit' },
  { question: 'On which date is my subscription billed?', documentId: 'billing-faq', answer: 'same day each month' },
  { question: 'What happens to the price if I move to a bigger plan mid-month?', documentId: 'billing-faq', answer: 'prorated' },
  { question: 'My card was declined, will my data be deleted?', documentId: 'billing-faq', answer: 'read-only until the balance is paid' },
  { question: 'Do I get money back if I stop my subscription?', documentId: 'billing-faq', answer: 'not refunded pro rata' },
  { question: 'Are prices including sales tax?', documentId: 'billing-faq', answer: 'Prices are shown without VAT' },
  {
    question: 'When should the on-call engineer switch the orders database to the standby?',
    documentId: 'failover-runbook',
    answer: 'unreachable for more than two minutes',
  },
  { question: 'How do I make sure the primary is really down and not just a network glitch?', documentId: 'failover-runbook', answer: 'health check script' },
  { question: 'How long does promoting the standby take?', documentId: 'failover-runbook', answer: 'under 60 seconds' },
  { question: 'What if the replica is far behind the primary?', documentId: 'failover-runbook', answer: 'lag exceeds 30 seconds' },
  { question: 'How do applications find the new database after failover?', documentId: 'failover-runbook', answer: 'DNS record orders-db.internal' },
  { question: 'When is the postmortem due?', documentId: 'failover-runbook', answer: 'incident report within two working days' },
  { question: 'How long does the contract run at first?', documentId: 'service-agreement', answer: 'initial term of 24 months' },
  { question: 'How much notice is needed to stop the contract from renewing?', documentId: 'service-agreement', answer: 'at least 90 days before the end' },
  { question: 'What is the interest on overdue invoices under the agreement?', documentId: 'service-agreement', answer: '1 percent per month' },
  { question: 'What uptime does the provider promise?', documentId: 'service-agreement', answer: '99.9 percent' },
  { question: 'What compensation do we get for downtime?', documentId: 'service-agreement', answer: 'service credit of 10 percent' },
  { question: 'How long must secrets be protected after the contract is over?', documentId: 'service-agreement', answer: 'survive for five years' },
  {
    question: 'What is the maximum amount either side has to pay for damages?',
    documentId: 'service-agreement',
    answer: 'total liability in any year is capped',
  },
  { question: 'Can we get our data back when the contract ends?', documentId: 'service-agreement', answer: 'available for export for 60 days' },
  { question: 'Where do new hires pick up their computer?', documentId: 'engineering-onboarding', answer: 'IT desk on the second floor' },
  { question: 'When do I get permission to touch production?', documentId: 'engineering-onboarding', answer: 'complete the security training' },
  { question: 'Does my code need a review before merging?', documentId: 'engineering-onboarding', answer: 'reviewed by at least one other engineer' },
  { question: 'When will I start doing on-call duty?', documentId: 'engineering-onboarding', answer: 'after three months' },
  { question: 'How long must my password be?', documentId: 'security-policy', answer: 'at least 14 characters' },
  { question: 'Do laptops need to be encrypted?', documentId: 'security-policy', answer: 'full-disk encryption' },
  { question: 'Can I read work mail on my own mobile?', documentId: 'security-policy', answer: 'device management profile' },
  { question: 'I think I received a phishing email, what should I do?', documentId: 'security-policy', answer: 'within one hour' },
  { question: 'Can guests walk around the building alone?', documentId: 'security-policy', answer: 'accompanied by their host' },
  { question: 'When will my order be shipped?', documentId: 'shop-returns', answer: 'before 2 pm on a working day' },
  { question: 'How much is next-day delivery?', documentId: 'shop-returns', answer: '9.90 euros' },
  { question: 'How long do I have to send clothes back?', documentId: 'shop-returns', answer: 'within 45 days' },
  { question: 'Can I return a bikini?', documentId: 'shop-returns', answer: 'swimwear cannot be returned' },
  { question: 'My package arrived broken', documentId: 'shop-returns', answer: 'send us a photo within seven days' },
  { question: 'Can dashboards be emailed automatically?', documentId: 'release-notes', answer: 'scheduled to arrive by email' },
  { question: 'Which identity providers work with SSO now?', documentId: 'release-notes', answer: 'any SAML 2.0 identity provider' },
  { question: 'When is the old reporting API switched off?', documentId: 'release-notes', answer: 'stops working on 30 June' },
  { question: 'What happens if nobody shows up for a room booking?', documentId: 'office-guide', answer: 'released for others' },
  { question: 'How much does lunch in the canteen cost?', documentId: 'office-guide', answer: 'costs 6 euros' },
  { question: 'Where can I park my bike?', documentId: 'office-guide', answer: 'locked storage room in the basement' },
  { question: 'What personal information do you gather about users?', documentId: 'privacy-notice', answer: 'name, email address and company' },
  { question: 'How long do you retain server logs?', documentId: 'privacy-notice', answer: 'kept for 13 months' },
  { question: 'Do you sell my data to advertisers?', documentId: 'privacy-notice', answer: 'We never sell personal data' },
  { question: 'How can I get my personal data erased?', documentId: 'privacy-notice', answer: 'data protection officer' },
  { question: 'How quickly does premium support respond?', documentId: 'price-list', answer: 'one hour around the clock' },
  { question: 'Which support plan includes phone support?', documentId: 'price-list', answer: 'email, chat and phone' },
  { question: 'How much is the business support plan?', documentId: 'price-list', answer: '290 euros' },
  // Unanswerable: neighbouring topics the documents do not cover.
  { question: 'How many days of bereavement leave can I take when a relative dies?' },
  { question: 'Is there a company pension scheme?' },
  { question: 'What is the per diem for travel in Japan?' },
  { question: 'Can I bring my spouse on a business trip at company expense?' },
  { question: 'How loud is the purifier in decibels?' },
  { question: 'Does the air purifier work with a smartphone app?' },
  { question: 'Do you offer discounts for non-profit organisations?' },
  { question: 'Can I pay with PayPal or cryptocurrency?' },
  { question: 'How do I restore the orders database from a backup after data corruption?' },
  { question: 'Which court has jurisdiction over disputes under the agreement?' },
  { question: 'What programming languages does the engineering team use?' },
  { question: 'How often must I change my password?' },
  { question: 'Do you ship to Switzerland or outside the EU?' },
  { question: 'Is there a dark mode in version 4.2?' },
  { question: 'Is there parking for cars at the office?' },
  { question: 'Do you use cookies for advertising?' },
  { question: 'What is the salary range for a senior engineer?' },
  { question: 'How do I exchange shoes for a different size?' },
];
