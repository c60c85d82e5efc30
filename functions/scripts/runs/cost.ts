// What a run costs (cost controls): compute at AWS Lambda's price, plus the resource calls it made.

/**
 * AWS Lambda x86_64 price per GB-second (us-east-1, first pricing tier). Scripts run on x86_64 for this reason,
 * and local runs are priced the same, so a script's cost does not depend on where it ran.
 */
export const lambdaGbSecondUsd = 0.0000166667;

/** Lambda bills the configured memory for the measured duration, per millisecond; never negative, whatever a duration says. */
export const computeCostUsd = (durationMs: number, memoryMb: number) => (Math.max(0, durationMs) / 1000) * (Math.max(0, memoryMb) / 1024) * lambdaGbSecondUsd;

/** Cost figures to a fixed precision (a millionth of a cent), so sums of many runs do not show float noise. */
export const roundUsd = (value: number) => Math.round(value * 1e12) / 1e12;

/** How long a run may last before its compute alone passes `limitUsd`. */
export const msAffordable = (limitUsd: number, memoryMb: number) => Math.floor(limitUsd / computeCostUsd(1, memoryMb));
