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
// letter now; package await moves the clock until a letter gets
// somewhere. See docs/lifecycle.md.
//
// # Errors
//
// Every error the Service returns is an *Error whose Code says what kind of
// failure it is; invalid input carries Fields, a map from field path to
// message, with every problem found, not just the first.
//
// # Packages
//
// The root keeps the domain: its types, its rules and the Service; each
// mechanism is a package of its own, and the arrows run one way:
//
//   - above the root: wire (the API's JSON), delivery (the Deliverer that
//     posts webhook events), httpadapter (the http.Handler), inbox (the web
//     UI), prom, lettershoptest and cmd/lettershop;
//   - below it: storage (the contract the stores keep; memstore and pgstore
//     know only it), the pure simulations (usps, postal, cass, ncoa,
//     render), egress (the one way out for lettershop's own requests) and
//     the mechanisms under internal/ and beside them, none of which imports
//     the root;
//   - apart: client, webhook and openapi, which import no package of the
//     module.
//
// docs/architecture.md says what each package knows and holds the table of
// the imports each may make; TestImports checks the module's import graph
// against that table and TestLayering that no arrow points back.
package lettershop
