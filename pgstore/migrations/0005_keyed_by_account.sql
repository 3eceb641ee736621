-- Every table is keyed by the account first: each primary key and unique
-- constraint leads with the account column, and so do the foreign keys
-- between tables, so the rows of one account can live apart from the
-- others' (a table sharded by account, or accounts spread over several
-- databases) with every key checked where the account's rows are. Three
-- tables were not: asset_versions (keyed by id), idempotency (by scope and
-- key) and deliveries (by webhook and id, referring to a webhook by its id
-- alone). Rows are kept as they are; only keys and indexes change.
--
-- Ids stay unique across accounts, as the storage contract says, through
-- exclusion constraints on the id alone (as letters and assets have had
-- from the first migration). Those are the one kind of constraint that
-- does not lead with the account; docs/postgres.md says what becomes of
-- them when the tables are distributed.

-- A version is keyed by its account and id.
ALTER TABLE asset_versions DROP CONSTRAINT asset_versions_pkey;
ALTER TABLE asset_versions ADD CONSTRAINT asset_versions_account_id PRIMARY KEY (account, id);
ALTER TABLE asset_versions ADD CONSTRAINT asset_versions_id_unique EXCLUDE USING hash (id WITH =);

-- An idempotency record is keyed by its account, scope and key (a scope,
-- an API key's identity, belongs to one account). Its size is what its
-- outcome counts against the account's bound in bytes; the outcomes stored
-- before count their length.
ALTER TABLE idempotency ADD COLUMN size bigint NOT NULL DEFAULT 0;
UPDATE idempotency SET size = octet_length(result) WHERE result IS NOT NULL;
ALTER TABLE idempotency DROP CONSTRAINT idempotency_pkey;
ALTER TABLE idempotency ADD CONSTRAINT idempotency_account_scope_key PRIMARY KEY (account, scope, key);

-- A delivery is keyed by its account, webhook and id, and refers to its
-- webhook by account and id; a webhook's id stays unique across accounts by
-- an exclusion constraint, as the other ids.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_webhook_id_fkey;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_webhook_id;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_account_webhook_id PRIMARY KEY (account, webhook_id, id);
ALTER TABLE deliveries ADD CONSTRAINT deliveries_webhook FOREIGN KEY (account, webhook_id)
    REFERENCES webhooks (account, id) ON DELETE CASCADE;
ALTER TABLE webhooks DROP CONSTRAINT webhooks_id_unique;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_id_unique EXCLUDE USING hash (id WITH =);
DROP INDEX deliveries_pending_by_letter;
CREATE INDEX deliveries_pending_by_letter ON deliveries (account, webhook_id, letter_id, seq) WHERE status = 'pending';
