// A compact AFINN-style valence lexicon curated for this platform: English words scored -5 (very negative)
// to +5 (very positive), grouped by score. Inflections are listed where the stem alone would miss them.

const byScore: Record<number, string> = {
  5: `outstanding superb breathtaking thrilled ecstatic euphoric flawless phenomenal magnificent masterpiece stunning`,
  4: `amazing awesome brilliant excellent fantastic fabulous wonderful incredible delighted delightful exceptional marvelous
    marvellous perfect perfectly spectacular terrific triumph triumphant love loved loving adore adored thrilling exhilarating
    overjoyed jubilant glorious heavenly blessed win winner winning`,
  3: `great good happy happier happiest glad joy joyful pleased pleasure beautiful gorgeous lovely impressive impressed
    success successful succeed succeeded excited exciting enjoy enjoyed enjoying fun celebrate celebrated celebrating
    congratulations congrats grateful thankful thanks thank appreciate appreciated proud cheerful favorite favourite
    superior admire admired rocks rock-solid strong strongest bullish profit profitable profits gain gains gained
    skyrocket skyrocketed soar soared soaring rally rallied surge surged boom booming breakthrough
    recommend recommended victory won best`,
  2: `nice fine cool helpful useful kindly friendly comfortable calm easy smooth smoothly clean
    clear fast quick reliable secure safe safely hope hopeful hoping optimistic positive improve improved improvement
    improving better upgrade upgraded growth grow growing grew rise rising upbeat welcome welcomed solved fixed
    resolved works agree agreed support supported supportive trust trusted honest fair interesting creative
    efficient effective productive valuable worth worthy win-win beat beats satisfied satisfying relief relieved promising
    encouraging encouraged stable healthy fresh free bonus reward rewarded rewarding generous smart clever wise
    accomplished achieve achieved achievement earn earned upside outperform outperformed recovered recovery`,
  1: `ok okay alright decent like liked likes interested ready yes sure accept accepted allow allowed approve approved
    available certain clarity honored lucky modest novel plenty relaxed respect respected
    steady straightforward tidy wish`,
  [-1]: `meh doubt doubtful unsure uncertain uncertainty unclear confused confusing delay delayed
    slow slower slowly late miss missed missing limited limit concern concerned concerns questionable
    odd strange weird hard harder difficult tough bored boring tired complicated minor issue issues
    cautious caution dip dipped mixed risk risky`,
  [-2]: `bad poor sad unhappy upset annoyed annoying irritated irritating disappoint disappointed disappointing
    disappointment frustrate frustrated frustrating frustration problem problems bug bugs buggy error errors fail
    fails failed failing failure broken breaks crash crashed crashes crashing wrong worse worry worried worrying
    lose loses losing loss losses lost drop dropped dropping falling fell decline declined declining weak weaker
    bearish sell-off selloff slump slumped plunge plunged sink sank sinking complaint complain complained complaining
    sorry unfortunately unfortunate ugly messy mess lame rude unfair unreliable expensive overpriced costly hurt hurts
    pain painful sick ill afraid fear fears scared nervous anxious stress stressed stressful mad outage down-time
    downtime blocked stuck refund refunds cancel cancelled canceled cancellation reject rejected denied deny lawsuit
    bankrupt debt overdue penalty fined spam scam`,
  [-3]: `terrible awful horrible hate hated hates hating angry furious useless worthless pathetic miserable nasty
    disgusting disgusted gross toxic hostile fraud fraudulent scammer stolen steal theft hack hacked breach leaked
    leak crisis disaster catastrophe collapse collapsed lie lied lies liar cheat cheated betray
    betrayed abuse abused destroy destroyed ruin ruined dead death died kill killed killing panic devastated
    devastating tragic tragedy nightmare`,
  [-4]: `horrendous atrocious abysmal appalling hideous despise despised loathe loathed vile evil cruel torture
    tortured catastrophic fucked fucking shitty`,
  [-5]: `bastard motherfucker`,
};

/** Emoticons and emoji (without the U+FE0F variation selector) people use for mood in chat. */
const symbols: Record<string, number> = {
  ':)': 2,
  ':-)': 2,
  ':D': 3,
  ':-D': 3,
  ';)': 1,
  ':(': -2,
  ':-(': -2,
  ":'(": -3,
  ':/': -1,
  '<3': 3,
  '😀': 2,
  '😃': 2,
  '😄': 3,
  '😁': 3,
  '😊': 2,
  '🙂': 1,
  '😍': 4,
  '🥰': 4,
  '👍': 2,
  '🎉': 3,
  '🚀': 2,
  '❤': 3,
  '🔥': 2,
  '🙁': -1,
  '☹': -2,
  '😞': -2,
  '😢': -2,
  '😭': -3,
  '😠': -3,
  '😡': -4,
  '👎': -2,
  '💩': -3,
  '🤬': -4,
};

export const lexicon: ReadonlyMap<string, number> = new Map([
  ...Object.entries(byScore).flatMap(([score, words]) =>
    words
      .split(/\s+/)
      .filter(Boolean)
      .map((word) => [word, Number(score)] as const),
  ),
  ...Object.entries(symbols),
]);

/** Words that flip the valence of the next few words: "not good", "never works". */
export const negations: ReadonlySet<string> = new Set([
  'not',
  'no',
  'never',
  'none',
  'nobody',
  'nothing',
  'neither',
  'nor',
  'without',
  'hardly',
  'barely',
  "don't",
  'dont',
  "doesn't",
  'doesnt',
  "didn't",
  'didnt',
  "isn't",
  'isnt',
  "wasn't",
  'wasnt',
  "aren't",
  'arent',
  "won't",
  'wont',
  "can't",
  'cant',
  'cannot',
  "couldn't",
  'couldnt',
  "shouldn't",
  'shouldnt',
  "wouldn't",
  'wouldnt',
]);

/** Words that strengthen (or soften) the next scored word. */
export const intensifiers: ReadonlyMap<string, number> = new Map([
  ['very', 1.5],
  ['really', 1.4],
  ['extremely', 1.8],
  ['super', 1.5],
  ['so', 1.3],
  ['totally', 1.5],
  ['absolutely', 1.7],
  ['incredibly', 1.7],
  ['highly', 1.4],
  ['completely', 1.5],
  ['truly', 1.3],
  ['most', 1.3],
  ['quite', 1.1],
  ['slightly', 0.6],
  ['somewhat', 0.7],
  ['kinda', 0.7],
  ['bit', 0.7],
  ['little', 0.7],
]);
