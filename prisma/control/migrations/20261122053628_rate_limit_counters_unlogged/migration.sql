-- Rate-limit counters are hot rows updated on every request. Without WAL their commits do not
-- wait for a disk flush, so one busy credential does not serialize the gateway on fsync.
-- Losing them in a crash only resets the current windows. (Hand-written: Prisma 6 cannot
-- declare UNLOGGED.)
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
