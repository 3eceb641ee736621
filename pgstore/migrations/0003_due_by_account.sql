-- Letters due, by account: a run of one account's letters, at the time of
-- a clock of its own, walks this index instead of every account's due
-- letters.
CREATE INDEX letters_due_by_account ON letters (account, due_at, id) WHERE due_at IS NOT NULL;
