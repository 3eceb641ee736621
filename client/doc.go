// Package client is a typed Go client for the letter mailing API that
// lettershop serves (interface version 2024-07-30). It works against a
// lettershop server and against the real service alike: a base URL and an
// API key are all it needs.
//
//	c := client.New("http://127.0.0.1:8080/v1", "sk_test_123")
//	letter, err := c.CreateLetter(ctx, &client.CreateLetterRequest{
//		Sender:    &client.PartyInput{Organization: "Acme Corp", Address: client.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
//		Recipient: &client.PartyInput{Individual: &client.Individual{FirstName: "Jane", LastName: "Doe"}, Address: client.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
//		Content:   &client.LetterContent{Type: client.LetterContentAsset, AssetID: assetID},
//		UseType:   client.UseTransactional,
//	})
//	for l, err := range c.ListLetters(ctx, &client.ListLettersParams{Status: client.StatusQueued}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(l.ID, l.Status)
//	}
//
// # Operations
//
// Every operation of the API is a method that takes a context first and
// typed requests, and returns typed responses: letters (CreateLetter,
// GetLetter, UpdateLetter, CancelLetter, ListLetters, ListLettersPage,
// DownloadURL, Download), assets (CreateAsset, GetAsset, UpdateAsset,
// DeleteAsset, ListAssets, ListAssetsPage), asset versions
// (CreateVersion, GetVersion, GetVersionContent, UpdateVersion,
// UploadVersionContent, DeleteVersion, PublishVersion, ArchiveVersion,
// CloneVersion, ListVersions, ListVersionsPage), webhooks (CreateWebhook,
// GetWebhook, UpdateWebhook, DeleteWebhook, ListWebhooks,
// ListWebhooksPage) and their deliveries (ListDeliveries,
// ListDeliveriesPage, RetryDelivery). The routes of a lettershop server
// run with a test clock are on Client.Test. A fetched letter goes back as
// an update with Letter.UpdateRequest.
//
// # Lists
//
// A List method returns an iterator (iter.Seq2[T, error]) that follows
// nextToken page after page until the list ends, the loop stops, or an
// error is yielded (once, as the last element). A ListPage method fetches
// one page; pass its NextToken back in the parameters for the next.
//
// # Retries and idempotency
//
// Every POST, PUT and DELETE carries an Idempotency-Key: the one given with
// IdempotencyKey, or a random one, the same on every attempt. A request is
// attempted again after a network error, a 408, a 409 request-in-flight,
// a 429 and a 5xx: after the answer's Retry-After (seconds or a date) when it has
// one; for a 429 without it, once X-Rate-Limit-Reset (or P-RateLimit-Reset)
// has passed; otherwise after an exponential backoff with jitter. It is
// attempted up to WithMaxRetries times again and never past the
// context's deadline: a wait that would end after the deadline is not
// begun, and the last error is returned. Any other 4xx is returned at once.
// Because the key is the same, a retried write whose first attempt did
// reach the server is answered from the server's record and done once.
// GETs are retried the same way. The test routes are not idempotent on the
// server, so they are retried only on 429, which the server answers before
// doing anything.
//
// # Options
//
// WithHTTPClient sets the transport; WithMaxRetries and WithBackoff the
// retry policy; WithIdempotencyKeys how keys are made; WithUserAgent the
// User-Agent. WithSleep, WithClock and WithJitter replace the waiting, the
// time and the randomness of the backoff, so a test of code that uses the
// client runs its retries at once and the same way every time.
//
// # Errors
//
// An answer other than a success is an *Error holding the problem's fields
// (Type, Title, Code, Detail, the field errors in Fields), the status, the
// request id and the Retry-After of the answer.
// errors.Is matches it against the status classes: ErrInvalid (400),
// ErrUnauthorized (401), ErrForbidden (403), ErrNotFound (404),
// ErrConflict (409), ErrTooLarge (413), ErrIdempotencyKeyReused (422),
// ErrRateLimited (429) and ErrServer (5xx).
//
//	_, err := c.GetLetter(ctx, "ltr_01...")
//	if errors.Is(err, client.ErrNotFound) { ... }
//	var e *client.Error
//	if errors.As(err, &e) { fmt.Println(e.Fields["recipient.address.addressLine1"]) }
//
// Error.Code is finer than the status: the Code constants name every code
// a server answers with (CodeInvalidRequest, CodeNotFound, CodeConflict,
// CodeRequestInFlight, CodeRateLimited, ...), to compare with it rather
// than a string written out.
//
//	if errors.As(err, &e) && e.Code == client.CodeConflict { ... }
//
// # Wire types
//
// The request and response types are the package's own and follow the
// OpenAPI document (openapi/openapi.yaml in the lettershop module; a test
// keeps every type's JSON fields identical to its schema). The package
// imports nothing but the standard library.
package client
