// Package lettershop is a local implementation of a print-and-mail letter
// API: letters with their senders, recipients and tracking history, content
// assets and their versions, template variables, metadata, idempotency and
// cursor pagination, behind a pluggable storage.Storage.
//
// This package holds the domain and the API's rules. The outside world a
// real service would call on is simulated in packages of its own, pure and
// replaceable: the postal timeline (package postal, behind Postal and
// WithPostal), address processing (packages cass and ncoa, behind
// AddressProcessor and WithAddressProcessor) and rendering (package render).
//
// # Quick start
//
//	svc := lettershop.New(memstore.New())
//	defer svc.Close()
//	asset, _ := svc.CreateAsset(ctx, "acct", lettershop.CreateAssetInput{Name: "Welcome"})
//	version, _ := svc.CreateVersion(ctx, "acct", asset.ID, lettershop.CreateVersionInput{
//		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Hello {{name}}</p>"},
//		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired}},
//		Publish: true,
//	})
//	letter, _ := svc.CreateLetter(ctx, "acct", lettershop.CreateLetterInput{...})
//
// A letter as the API shows it is package wire's: wire.Letter(letter). To
// send webhook events, give the Service a Deliverer:
// lettershop.New(store, lettershop.WithDeliverer(delivery.Open)).
//
// Every operation is scoped to an account, a plain string: objects of
// another account are not found.
//
// # Deterministic output
//
// Time and randomness are injected. With WithClock(clock.NewMock()) every
// timestamp, lifecycle step and expiry follows the mock clock (set it to a
// realistic instant first: a new mock stands at 1970-01-01, and ids carry
// its time), and with
// WithEntropy(seeded reader) every id is repeatable; event ids derive from
// their letter and position, and a rendered PDF takes its dates from its
// letter (the send date, else the creation time), so the same letter renders
// to the same bytes.
//
// # Letters in motion
//
// Letters move queued -> ready -> inProduction -> mailed, then gather postal
// tracking events, on the Service's clock: every read catches up first, so
// after moving a clock.Mock the next call sees every letter where real mail
// would be. RunDue runs what is due without reading; Simulate moves one
// letter now. See docs/lifecycle.md.
//
// # Errors
//
// Every error the Service returns is an *Error whose Code says what kind of
// failure it is; invalid input carries Fields, a map from field path to
// message, with every problem found, not just the first.
//
// # Packages and the allowed imports
//
//   - lettershop (this package): the domain and the API's rules, the
//     Service and its options. Test controls are in testcontrols.go.
//   - storage: the Storage contract, its record types and sentinel errors;
//     storage/storagetest is the conformance suite every backend runs.
//   - memstore, pgstore: the in-memory and PostgreSQL backends.
//   - usps: pure address tables and rules (Publication 28, ZIP Codes).
//   - postal, cass, render: the simulations of the postal timeline, of
//     address processing and of printing. postal, cass and usps are pure:
//     no storage, no clock reads, time comes in as an argument.
//   - ncoa: the built-in address processor below the root: the registry of
//     moves NCOA forwards recipients by (state, in memory), and the run of
//     NCOA then CASS on one address; the root maps a party onto it.
//   - httpadapter: the http.Handler serving the API; its /_test routes are
//     in testroutes.go. It tells an Observer of its requests and keeps no
//     metrics itself; prom records them, and the Service's hooks, as
//     Prometheus metrics, apart so that the Prometheus client is in no
//     binary that does not ask for it.
//   - lettershoptest: the test helper; lettershoptest/pgtest runs it on
//     PostgreSQL, apart so that its driver is in no test binary that does
//     not ask for it. client: the typed Go client, whose wire types the
//     helper returns too.
//   - openapi: the OpenAPI document, embedded; internal/openapitest checks
//     traffic against it in tests; internal/pdftest reads PDFs back in tests;
//     internal/echo cuts what error messages quote of their input.
//   - wire: the API's JSON of letters, pages of them and webhook events,
//     written field by field, and the encodings of a Service's letters kept
//     by their stored state (wire.Letters); the root does not encode for
//     the wire.
//   - delivery: the Deliverer lettershop comes with (delivery.Open, or
//     delivery.OpenWith and its options: timeout, attempts per account,
//     allowed hosts, HTTP client): it takes the deliveries due through the
//     Service's Deliveries, fairly across accounts, each leased for its
//     attempt, posts each event signed, and retries with backoff. A Service
//     sends its webhook events only with a Deliverer:
//     WithDeliverer(delivery.Open), or httpadapter.New gives it this one.
//   - snapshot: an account's records and clock as one JSON document, taken
//     and restored (with fresh ids) for test fixtures.
//   - testclock: a clock for tests that moves only when told and never
//     sleeps to move (a TestClock); lettershoptest runs on it.
//   - internal/clockview: a Service's view of the accounts' own clocks as
//     the store keeps them, read again only when the store's clock stamp
//     moved.
//   - internal/pack: the compact byte form a record is kept in, in
//     memory: values written and read back in order, common words as
//     numbers, and a record's metadata packed to be interned (memstore's
//     form, which a letter snapshot shares); it knows nothing of what it
//     packs but storage's metadata pairs.
//   - internal/letterpack: the layout of a letter document a store
//     keeps in memory (storage.LetterDoc): which values, in which order,
//     written with internal/pack, and the kept form itself (Kept: read,
//     encoded and stepped through storage's letter interfaces), which
//     memstore keeps and a letter snapshot shares; it knows storage's
//     records only.
//   - internal/lettersnap: a stored letter kept as an answer showed it,
//     for an idempotent request's replay, and its compressed encoding
//     for a store that serializes; it knows storage's records only.
//   - internal/jsonsplice: changes the first and last members of a
//     serialized JSON object without decoding the rest, for a lifecycle
//     step on a letter a store keeps serialized.
//   - fetchbatch: fetches a set of URLs at once, fairly across their
//     hosts, for a lifecycle run checking the content its letters fetch;
//     it knows nothing of what it fetches, nor how. It keeps the helpers
//     around one fetch too: Once, Answers, NotFetched.
//   - signedlink: signs download links and opens their signatures
//     (AES-GCM with a synthetic IV); the root makes and serves the links.
//   - rendercache: rendered letters kept in memory (an LRU) by the stored
//     state they were rendered from; the root decides what renders.
//   - internal/storehooks: a storage.Storage layer that tells callbacks of
//     store failures and letters' statuses; the root's Hooks are wired
//     through it.
//   - internal/waker: runs a function in the background when the earliest
//     due time it was told of comes, or at least every so often, on a clock;
//     the lifecycle's background runs on a real clock go through it.
//   - internal/upkeep: paces upkeep work on a clock: a function repeated on
//     its ticks (the renewal of an idempotency lease), counts per account
//     that say when a trim is due, and the spacing of purges.
//   - inbox: the web UI, an http.Handler beside the API's.
//   - egress: the one policy for every request lettershop makes itself
//     (webhook deliveries, content fetched from a URL), and the client that
//     keeps it; no other package dials or makes an HTTP client, which
//     TestOwnRequestsGoThroughEgress checks (docs/egress.md).
//   - cmd/lettershop: the server.
//
// Each package may import, of this module, only the packages listed
// against it below; the standard library and third-party libraries are
// free, except where it says std only. TestImports reads this table and
// checks the module's import graph (go list) against it, so the layering
// cannot rot. A simulation owns its value types and never imports this
// package, the way database/sql/driver does not import database/sql; only
// tests, lettershoptest and the commands import a concrete store.
//
//	lettershop          -> storage, usps, postal, cass, ncoa, render, egress, internal/echo, internal/clockview, snapshot, fetchbatch, signedlink, rendercache, internal/storehooks, internal/pack, internal/letterpack, internal/lettersnap, internal/jsonsplice, internal/waker, internal/upkeep
//	snapshot            -> storage
//	storage             -> (std only)
//	storage/storagetest -> storage
//	memstore            -> storage, internal/pack, internal/letterpack
//	pgstore             -> storage
//	usps                -> (none)
//	postal              -> usps
//	cass                -> usps
//	ncoa                -> cass, usps
//	render              -> usps
//	wire                -> lettershop
//	delivery            -> lettershop, wire, webhook, egress, internal/echo
//	httpadapter         -> lettershop, storage, openapi, internal/echo, snapshot, wire, delivery
//	prom                -> lettershop, httpadapter
//	lettershoptest      -> lettershop, storage, memstore, httpadapter, webhook, client, snapshot, testclock, wire, delivery
//	lettershoptest/pgtest -> lettershoptest, storage, pgstore
//	client              -> (none)
//	openapi             -> (none)
//	webhook             -> (none)
//	egress              -> (std only)
//	testclock           -> (none)
//	internal/clockview  -> storage
//	internal/pack       -> storage
//	internal/letterpack -> storage, internal/pack
//	internal/lettersnap -> storage, internal/pack, internal/letterpack
//	internal/jsonsplice -> (std only)
//	fetchbatch          -> (std only)
//	signedlink          -> (std only)
//	rendercache         -> (none)
//	internal/storehooks -> storage
//	internal/waker      -> (none)
//	internal/upkeep     -> (none)
//	internal/openapitest -> openapi
//	internal/pdftest    -> (none)
//	internal/echo       -> (none)
//	inbox               -> lettershop, httpadapter, internal/echo
//	examples/...        -> client, webhook
//	cmd/...             -> (any)
package lettershop
