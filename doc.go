// Package lettershop is a local implementation of a print-and-mail letter
// API: letters with their senders, recipients and tracking history, content
// assets and their versions, template variables, metadata, idempotency and
// cursor pagination, address processing, and PDF rendering, behind a
// pluggable storage.Storage.
//
// # Quick start
//
//	svc := lettershop.New(memstore.New())
//	defer svc.Close()
//	asset, _ := svc.CreateAsset(ctx, "acct", lettershop.CreateAssetInput{Name: "Welcome"})
//	version, _ := svc.CreateVersion(ctx, "acct", asset.ID, lettershop.CreateVersionInput{
//		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Data: "<p>Hello {{name}}</p>"},
//		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired}},
//		Publish: true,
//	})
//	letter, _ := svc.CreateLetter(ctx, "acct", lettershop.CreateLetterInput{...})
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
package lettershop
