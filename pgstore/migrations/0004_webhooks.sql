-- Webhooks, and a delivery per webhook and letter change. A delivery is
-- made in the same statement or transaction that writes the letter change,
-- so neither is ever written without the other.
CREATE TABLE webhooks (
    account     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    url         text NOT NULL,
    -- The notice types sent; empty sends every type.
    events      text[] NOT NULL,
    description text NOT NULL,
    metadata    jsonb NOT NULL,
    status      text COLLATE "C" NOT NULL,
    secret      text NOT NULL,
    created_at  timestamptz NOT NULL,
    modified_at timestamptz NOT NULL,
    revision    bigint NOT NULL,
    CONSTRAINT webhooks_account_id PRIMARY KEY (account, id),
    CONSTRAINT webhooks_id_unique UNIQUE (id)
);

CREATE TABLE deliveries (
    webhook_id      text COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    id              text COLLATE "C" NOT NULL,
    account         text COLLATE "C" NOT NULL,
    event_id        text COLLATE "C" NOT NULL,
    type            text COLLATE "C" NOT NULL,
    letter_id       text COLLATE "C" NOT NULL,
    seq             integer NOT NULL,
    event_at        timestamptz NOT NULL,
    status          text COLLATE "C" NOT NULL,
    attempts        integer NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    retry_until     timestamptz NOT NULL,
    leased_until    timestamptz,
    last_attempt_at timestamptz,
    status_code     integer NOT NULL,
    error           text NOT NULL,
    revision        bigint NOT NULL,
    CONSTRAINT deliveries_webhook_id PRIMARY KEY (webhook_id, id)
);
-- Pending deliveries as they fall due, of all accounts or of one, and per
-- webhook and letter in order (only the first of a letter's is due).
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, webhook_id, id) WHERE status = 'pending';
CREATE INDEX deliveries_due_by_account ON deliveries (account, next_attempt_at, webhook_id, id) WHERE status = 'pending';
CREATE INDEX deliveries_pending_by_letter ON deliveries (webhook_id, letter_id, seq) WHERE status = 'pending';
