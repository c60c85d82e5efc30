// Imported first by bench/run.ts: the platform's loggers read their level when their modules load, and the benches'
// own modules import platform modules before any bench starts its platform. Without this, every measured request
// would also write an access line to the bench's stdout.
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
