// Topics of a text from keyword lists: a topic is named when at least one of its words (or a word starting
// with one of its stems, written `stem*`) occurs; the topics with most hits come first.
import type { Ticker } from './market.js';
import { symbolIndex } from './symbols.js';

const keywords: Record<string, string> = {
  finance:
    'stock* share shares market* earnings revenue profit* invest* portfolio dividend* nasdaq nyse ipo valuation price* trading trade* fund* bank* interest inflation',
  crypto: 'crypto* bitcoin ethereum solana blockchain token* wallet* defi nft* airdrop staking stablecoin* onchain web3 memecoin* altcoin*',
  technology: 'software api* deploy* server* cloud database* code coding bug* release* github app apps ai llm model* kubernetes devops backend frontend',
  meetings: 'meeting* call calls agenda calendar schedul* invite* standup sync zoom minutes reschedul* appointment*',
  support: 'support ticket* issue* outage* incident* broken error* help helpdesk complaint* escalat* refund*',
  sales: 'deal* lead* prospect* pipeline quote* contract* customer* client* demo* pricing discount* renewal* crm',
  billing: 'invoice* payment* paid pay billing charge* subscription* receipt* overdue checkout',
  hiring: 'hiring hire* recruit* candidate* interview* resume* cv onboarding offer job* role* position*',
  travel: 'flight* hotel* trip* travel* booking* airport* itinerary visa passport',
  legal: 'legal lawyer* contract* nda compliance gdpr lawsuit* terms policy polic* regulat*',
  security: 'security secur* password* breach* hack* phishing vulnerab* 2fa mfa leak* malware',
  marketing: 'marketing campaign* seo newsletter* launch* brand* social ads advert* audience* engagement',
  health: 'health doctor* hospital* sick medic* covid vaccine* therapy wellness fitness',
};

interface TopicMatcher {
  topic: string;
  words: ReadonlySet<string>;
  stems: string[];
}

const matchers: TopicMatcher[] = Object.entries(keywords).map(([topic, list]) => {
  const entries = list.split(' ');
  return {
    topic,
    words: new Set(entries.filter((entry) => !entry.endsWith('*'))),
    stems: entries.filter((entry) => entry.endsWith('*')).map((entry) => entry.slice(0, -1)),
  };
});

const maxTopics = 5;

export function extractTopics(text: string, tickers: Ticker[]): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const hits = new Map<string, number>();
  for (const { topic, words: exact, stems } of matchers) {
    const count = words.filter((word) => exact.has(word) || stems.some((stem) => word.startsWith(stem))).length;
    if (count) hits.set(topic, count);
  }
  // A ticker found with some certainty is itself a hint of what the text is about.
  for (const { symbol, confidence } of tickers) {
    if (confidence < 0.6) continue;
    const topic = symbolIndex.get(symbol)?.kind === 'crypto' ? 'crypto' : 'finance';
    hits.set(topic, (hits.get(topic) ?? 0) + 1);
  }
  return [...hits]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, maxTopics)
    .map(([topic]) => topic);
}
