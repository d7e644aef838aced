/** Imported first by a bench: the project's loggers read their level when their modules load. */
process.env.PHASE5_LOG_LEVEL ??= 'warn';
