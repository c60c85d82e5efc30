// The first evaluation set of search, kept as a second check beside the workplace set: passages the size of a chunk,
// each uploaded as a text document of its own, and questions a user would type, each with the one passage that
// answers it. Neighbouring passages share topics on purpose (two about money, two about travel, ...) so the set
// measures precision against near misses, not only strangers; the unanswerable questions sit next to them.
import type { EvalDocument, EvalQuestion } from './workplace-set.js';

interface EvalPassage {
  id: string;
  text: string;
}

const evalPassages: EvalPassage[] = [
  {
    id: 'refunds',
    text: 'Refund policy. Customers can return any product within 30 days of delivery for a full refund. The item must be unused and in its original packaging. Refunds are paid back to the original payment method within five business days after the warehouse receives the parcel.',
  },
  {
    id: 'invoices',
    text: 'Invoices are issued on the first day of every month for the previous month of usage. Payment is due within 14 days. Late payments incur a fee of 1.5 percent per month, and accounts more than 60 days overdue are suspended until the balance is settled.',
  },
  {
    id: 'password',
    text: 'To reset your password, open the sign-in page and choose "Forgot password". We email you a link that stays valid for one hour. Following the link lets you choose a new password; all other sessions are signed out for safety.',
  },
  {
    id: 'two-factor',
    text: 'Two-factor authentication adds a second step to signing in. After entering your password you type a six-digit code from an authenticator app on your phone. You can turn it on under Settings, Security, and keep the printed recovery codes somewhere safe.',
  },
  {
    id: 'office-hours',
    text: 'Our Lisbon office is open Monday to Friday from 9 am to 6 pm. On public holidays the office stays closed, and support requests are answered on the next working day. Visitors should register at the reception desk on the ground floor.',
  },
  {
    id: 'parking',
    text: 'Employees can park in the underground garage beneath the building. Each parking space must be booked the day before through the facilities portal. Electric cars can charge for free on the spaces marked in green on level minus two.',
  },
  {
    id: 'sourdough',
    text: 'A good sourdough loaf needs an active starter, flour, water and salt. Mix them and let the dough rest, then fold it every half hour. After an overnight rise in the fridge, bake it in a very hot covered pot for about 45 minutes.',
  },
  {
    id: 'pasta',
    text: 'Fresh pasta is made from flour and eggs only. Knead the dough for ten minutes until it is smooth, wrap it and let it rest. Roll it thin, cut it into ribbons and boil it in salted water for two or three minutes.',
  },
  {
    id: 'photosynthesis',
    text: 'Plants make their own food through photosynthesis. Chlorophyll in the leaves captures energy from sunlight and uses it to turn carbon dioxide and water into glucose. Oxygen is released into the air as a by-product of the process.',
  },
  {
    id: 'volcano',
    text: 'A volcano erupts when pressure from gases and molten rock below the surface becomes too great. Magma rises through cracks in the crust and escapes as lava, ash and gas. Some eruptions are explosive, while others pour out lava slowly.',
  },
  {
    id: 'marathon',
    text: 'Training for a marathon usually takes about four months. Runners increase their longest weekly run gradually, up to around 32 kilometres, and reduce the distance in the last three weeks so the body can recover before race day.',
  },
  {
    id: 'sleep',
    text: 'Adults need between seven and nine hours of sleep each night. Keeping a regular bedtime, avoiding caffeine in the afternoon and putting screens away an hour before bed all make it easier to fall asleep and stay asleep.',
  },
  {
    id: 'train-luggage',
    text: 'On our trains each passenger may bring two large suitcases and one small bag free of charge. Bicycles travel in the dedicated carriage at the front and must be reserved in advance. Pets under ten kilograms ride for free in a carrier.',
  },
  {
    id: 'flight-delay',
    text: 'If your flight arrives more than three hours late, you may be entitled to compensation of up to 600 euros, depending on the distance. Claims must be filed within two years, and delays caused by extreme weather are not covered.',
  },
  {
    id: 'solar',
    text: 'Solar panels on a typical family house produce between 3,000 and 5,000 kilowatt hours a year. The installation pays for itself after roughly eight years, and most panels keep working for at least twenty-five years with little maintenance.',
  },
  {
    id: 'heat-pump',
    text: 'A heat pump warms a house by moving heat from the outside air into the building, even in winter. It uses about a third of the electricity of a direct electric heater, but works best in well-insulated homes with underfloor heating.',
  },
  {
    id: 'vaccination',
    text: 'Puppies should receive their first vaccinations at eight weeks of age, followed by boosters at twelve and sixteen weeks. Until the course is complete, they should not walk in public parks or meet unvaccinated dogs.',
  },
  {
    id: 'cat-food',
    text: 'Cats are carnivores and need protein from meat in every meal. Dry food alone can leave them short of water, so most vets recommend mixing in wet food. Never feed a cat onions, chocolate or grapes, which are toxic to them.',
  },
  {
    id: 'git-branch',
    text: 'To start work on a new feature, create a branch from main with git switch -c followed by the branch name. Commit your changes there, push the branch, and open a pull request so that a teammate can review the code before it is merged.',
  },
  {
    id: 'backups',
    text: 'The database is backed up automatically every night at 2 am, and backups are kept for 35 days. To restore, pick a point in time in the console; the restored copy is created as a new database, leaving the original untouched.',
  },
  {
    id: 'api-rate-limit',
    text: 'Each API key may send up to 1,000 requests per minute. When the limit is reached, the service answers with status 429 and a Retry-After header telling the client how many seconds to wait before trying again.',
  },
  {
    id: 'webhook-signature',
    text: 'Every webhook we send carries a signature header computed as an HMAC-SHA256 of the request body with your webhook secret. Recompute it on your side and reject any request whose signature does not match, to be sure the call came from us.',
  },
  {
    id: 'vacation',
    text: 'Full-time employees receive 25 days of paid vacation per year, plus public holidays. Unused days can be carried over until the end of March of the following year. Requests should be entered in the HR portal at least two weeks ahead.',
  },
  {
    id: 'expenses',
    text: 'Business travel expenses are reimbursed when submitted with receipts within 30 days of the trip. Hotels up to 150 euros per night and economy flights are covered; taxis only when no public transport is available.',
  },
  {
    id: 'tides',
    text: 'Tides are caused mainly by the gravitational pull of the Moon on the oceans. Most coasts see two high tides and two low tides every day, and the difference between them is largest at full and new moon.',
  },
  {
    id: 'coffee',
    text: 'For filter coffee, use about 60 grams of ground coffee per litre of water, heated to between 92 and 96 degrees. Grind the beans just before brewing, since ground coffee loses its aroma within minutes.',
  },
];

const answerable: Array<{ question: string; relevant: string }> = [
  { question: 'How long do I have to send back something I bought?', relevant: 'refunds' },
  { question: 'When will I get my money back after returning an item?', relevant: 'refunds' },
  { question: 'What happens if I pay my bill late?', relevant: 'invoices' },
  { question: 'When is the monthly invoice due?', relevant: 'invoices' },
  { question: 'I forgot my password, how do I get back into my account?', relevant: 'password' },
  { question: 'How do I enable a second login step with a code from my phone?', relevant: 'two-factor' },
  { question: 'What are the opening hours of the office in Lisbon?', relevant: 'office-hours' },
  { question: 'Where can staff leave their cars, and can I charge my electric car?', relevant: 'parking' },
  { question: 'How do you bake sourdough bread?', relevant: 'sourdough' },
  { question: 'What is the recipe for homemade fresh pasta?', relevant: 'pasta' },
  { question: 'How do plants turn sunlight into food?', relevant: 'photosynthesis' },
  { question: 'Why do volcanoes erupt?', relevant: 'volcano' },
  { question: 'How should I prepare for running a marathon?', relevant: 'marathon' },
  { question: 'How many hours of sleep does an adult need?', relevant: 'sleep' },
  { question: 'Can I take my bike and my suitcases on the train?', relevant: 'train-luggage' },
  { question: 'Am I owed compensation when my plane lands hours late?', relevant: 'flight-delay' },
  { question: 'How much electricity do solar panels on a house generate?', relevant: 'solar' },
  { question: 'How does a heat pump heat a home?', relevant: 'heat-pump' },
  { question: 'When should my puppy get its vaccines?', relevant: 'vaccination' },
  { question: 'What should I feed my cat?', relevant: 'cat-food' },
  { question: 'How do I create a new git branch for a feature?', relevant: 'git-branch' },
  { question: 'How often is the database backed up and how do I restore it?', relevant: 'backups' },
  { question: 'How many API requests can I make per minute?', relevant: 'api-rate-limit' },
  { question: 'How do I verify that a webhook really came from you?', relevant: 'webhook-signature' },
  { question: 'How many vacation days do employees get each year?', relevant: 'vacation' },
  { question: 'Which travel costs does the company reimburse?', relevant: 'expenses' },
  { question: 'What causes the tides in the sea?', relevant: 'tides' },
  { question: 'How much coffee should I use per litre of water?', relevant: 'coffee' },
  { question: 'Is there a fee when an invoice is paid after the due date?', relevant: 'invoices' },
  { question: 'How do I get a new password when I cannot sign in?', relevant: 'password' },
  { question: 'Where do I reserve a spot in the office car park?', relevant: 'parking' },
  { question: 'Which foods are poisonous for cats?', relevant: 'cat-food' },
  { question: 'How hot should the water be when brewing filter coffee?', relevant: 'coffee' },
  { question: 'How long are database backups kept?', relevant: 'backups' },
  { question: 'Can unused holiday days be carried into next year?', relevant: 'vacation' },
  { question: 'How many years until rooftop photovoltaics pay for themselves?', relevant: 'solar' },
  { question: 'Can I bring my dog on the train?', relevant: 'train-luggage' },
  { question: 'What is the gas given off by plants during photosynthesis?', relevant: 'photosynthesis' },
  { question: 'What status code do I get when I send too many API calls?', relevant: 'api-rate-limit' },
  { question: 'How many kilometres should my longest training run be before a marathon?', relevant: 'marathon' },
];

const unanswerable = [
  'How much does a monthly train pass cost?',
  'What is the best fertiliser for tomato plants?',
  'How do I bake gluten-free bread?',
  'Which vaccines does a kitten need?',
  'How do I merge two git branches with a conflict?',
  'How many sick days do employees get?',
  'What is the interest rate on a savings account?',
  'How do I change the email address of my account?',
  'When does the Lisbon office close for the summer holidays?',
  'How long does it take to recover from running a marathon?',
];

export const passageDocuments: EvalDocument[] = evalPassages.map(({ id, text }) => ({
  id,
  filename: `${id}.txt`,
  mimeType: 'text/plain',
  sections: [{ heading: '', paragraphs: [text] }],
}));

/** A passage is one chunk: its first words identify it. */
export const passageQuestions: EvalQuestion[] = [
  ...answerable.map(({ question, relevant }) => ({
    question,
    documentId: relevant,
    answer: evalPassages.find((passage) => passage.id === relevant)!.text.slice(0, 30),
  })),
  ...unanswerable.map((question) => ({ question })),
];
