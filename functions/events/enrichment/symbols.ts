// The shipped list of market symbols the ticker and company extractors know: large US-listed companies
// and major crypto assets, each with the names people write for it (left out where the name is also an
// everyday word: Target, Block, Stellar, Optimism).

export interface KnownSymbol {
  symbol: string;
  names: string[];
  kind: 'stock' | 'crypto';
}

const stocks: Array<[string, ...string[]]> = [
  ['AAPL', 'Apple'], ['MSFT', 'Microsoft'], ['GOOGL', 'Alphabet', 'Google'], ['GOOG'], ['AMZN', 'Amazon'], ['META', 'Meta Platforms', 'Facebook'],
  ['NVDA', 'Nvidia', 'NVIDIA'], ['TSLA', 'Tesla'], ['BRK.B', 'Berkshire Hathaway'], ['AVGO', 'Broadcom'], ['ORCL', 'Oracle'],
  ['AMD', 'Advanced Micro Devices'], ['INTC', 'Intel'], ['QCOM', 'Qualcomm'], ['TXN', 'Texas Instruments'], ['MU', 'Micron'],
  ['IBM'], ['CSCO', 'Cisco'], ['CRM', 'Salesforce'], ['ADBE', 'Adobe'], ['NOW', 'ServiceNow'], ['INTU', 'Intuit'], ['SHOP', 'Shopify'],
  ['SNOW', 'Snowflake'], ['PLTR', 'Palantir'], ['UBER', 'Uber'], ['ABNB', 'Airbnb'], ['NFLX', 'Netflix'], ['DIS', 'Disney'],
  ['SPOT', 'Spotify'], ['PYPL', 'PayPal'], ['SQ'], ['COIN', 'Coinbase'], ['HOOD', 'Robinhood'], ['V', 'Visa'], ['MA', 'Mastercard'],
  ['AXP', 'American Express'], ['JPM', 'JPMorgan', 'JP Morgan'], ['BAC', 'Bank of America'], ['WFC', 'Wells Fargo'], ['C', 'Citigroup'],
  ['GS', 'Goldman Sachs'], ['MS', 'Morgan Stanley'], ['BLK', 'BlackRock'], ['SCHW', 'Charles Schwab'], ['WMT', 'Walmart'],
  ['COST', 'Costco'], ['TGT'], ['HD', 'Home Depot'], ['LOW', "Lowe's"], ['NKE', 'Nike'], ['SBUX', 'Starbucks'],
  ['MCD', "McDonald's"], ['KO', 'Coca-Cola'], ['PEP', 'PepsiCo'], ['PG', 'Procter & Gamble'], ['JNJ', 'Johnson & Johnson'],
  ['PFE', 'Pfizer'], ['MRK', 'Merck'], ['LLY', 'Eli Lilly'], ['ABBV', 'AbbVie'], ['UNH', 'UnitedHealth'], ['MRNA', 'Moderna'],
  ['XOM', 'ExxonMobil', 'Exxon'], ['CVX', 'Chevron'], ['BA', 'Boeing'], ['CAT', 'Caterpillar'], ['GE', 'General Electric'],
  ['F', 'Ford'], ['GM', 'General Motors'], ['RIVN', 'Rivian'], ['T', 'AT&T'], ['VZ', 'Verizon'], ['TMUS', 'T-Mobile'],
  ['CMCSA', 'Comcast'], ['SONY', 'Sony'], ['TSM', 'TSMC', 'Taiwan Semiconductor'], ['ASML'], ['BABA', 'Alibaba'], ['SAP'],
  ['ZM', 'Zoom Video'], ['DDOG', 'Datadog'], ['NET', 'Cloudflare'], ['MDB', 'MongoDB'], ['TEAM', 'Atlassian'], ['ARM', 'Arm Holdings'],
  ['SMCI', 'Super Micro Computer'], ['MSTR', 'MicroStrategy'], ['SPY'], ['QQQ'],
];

const crypto: Array<[string, ...string[]]> = [
  ['BTC', 'Bitcoin'], ['ETH', 'Ethereum'], ['SOL', 'Solana'], ['USDC', 'USD Coin'], ['USDT', 'Tether'], ['BNB'],
  ['XRP'], ['ADA', 'Cardano'], ['DOGE', 'Dogecoin'], ['AVAX'], ['DOT', 'Polkadot'], ['MATIC'],
  ['LINK', 'Chainlink'], ['LTC', 'Litecoin'], ['TRX'], ['TON', 'Toncoin'], ['SHIB', 'Shiba Inu'], ['UNI', 'Uniswap'],
  ['ATOM'], ['XLM'], ['BONK'], ['JUP'], ['PEPE'], ['ARB', 'Arbitrum'], ['OP'],
];

export const knownSymbols: KnownSymbol[] = [
  ...stocks.map(([symbol, ...names]): KnownSymbol => ({ symbol, names, kind: 'stock' })),
  ...crypto.map(([symbol, ...names]): KnownSymbol => ({ symbol, names, kind: 'crypto' })),
];

export const symbolIndex: ReadonlyMap<string, KnownSymbol> = new Map(knownSymbols.map((known) => [known.symbol, known]));

/**
 * Symbols that are also everyday words or abbreviations ("NOW", "LOW", "OP"): trusted only as cashtags
 * (`$NOW`), never as a bare upper-case word. One- and two-letter symbols are treated the same way.
 */
export const ambiguousSymbols: ReadonlySet<string> = new Set(['NOW', 'LOW', 'CAT', 'NET', 'TEAM', 'ARM', 'LINK', 'DOT', 'UNI', 'TON', 'SHOP', 'SNOW', 'COST', 'HOOD', 'SPOT', 'COIN', 'PEP', 'DIS', 'JUP', 'ARB', 'OP', 'ADA']);
