-- Completed idempotency records of one created_at (a test clock that stands
-- still makes them all at one instant) are trimmed in the order they were
-- completed, not of their keys: done_seq, taken from a sequence when a
-- record is completed, orders them, so the outcome a request has just
-- stored is not the first to go. Records completed before have 0.
CREATE SEQUENCE idempotency_done_seq;
ALTER TABLE idempotency ADD COLUMN done_seq bigint NOT NULL DEFAULT 0;
DROP INDEX idempotency_trim;
CREATE INDEX idempotency_trim ON idempotency (account, failed, created_at DESC, done_seq DESC, scope, key) WHERE done;
