package pgstore

import "github.com/jackc/pgx/v5"

// Exported for the tests that check which indexes the store's queries use.
var (
	ListLettersQuery     = listLettersQuery
	ListAssetsQuery      = listAssetsQuery
	DueLettersSQL        = dueLettersSQL
	AccountDueLettersSQL = accountDueLettersSQL
	ExceptDueLettersSQL  = exceptDueLettersSQL
	DueDeliveriesSQL     = dueDeliveriesSQL
	PurgeIdempotencySQL  = purgeIdempotencySQL
	DeliveryAccountsSQL  = deliveryAccountsSQL
	HasWebhooksSQL       = hasWebhooksSQL
	AccountClocksSQL     = accountClocksSQL
)

// WithMigrationsUpTo stops Open's migrations after version v.
func WithMigrationsUpTo(v int) Option { return func(o *options) { o.upTo = v } }

// WithQueryTracer has every statement the store sends seen by t.
func WithQueryTracer(t pgx.QueryTracer) Option { return func(o *options) { o.tracer = t } }
