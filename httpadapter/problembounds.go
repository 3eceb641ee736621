package httpadapter

import (
	"maps"
	"slices"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/echo"
)

// maxProblemMessage bounds an error's message in a problem, in bytes.
const maxProblemMessage = lettershop.MaxFieldMessage

// boundedError returns e as a problem shows it: within the bounds the
// Service holds its own invalid-input errors to (lettershop.MaxFieldErrors,
// MaxFieldPath, MaxFieldMessage), which errors this layer finds itself
// (an unknown member, a query parameter) are held to here. A problem, and
// the outcome an idempotency key keeps of it, then stays small whatever
// the request held. e itself is returned when it is within them.
func boundedError(e *lettershop.Error) *lettershop.Error {
	within := len(e.Fields) <= lettershop.MaxFieldErrors && len(e.Message) <= maxProblemMessage
	for k, v := range e.Fields {
		if !within {
			break
		}
		within = len(k) <= lettershop.MaxFieldPath && len(v) <= lettershop.MaxFieldMessage
	}
	if within {
		return e
	}
	b := *e
	b.Message = echo.Cut(e.Message, maxProblemMessage)
	b.Fields = make(map[string]string, min(len(e.Fields), lettershop.MaxFieldErrors))
	// In path order, so the same request always shows the same fields.
	for _, k := range slices.Sorted(maps.Keys(e.Fields)) {
		if len(b.Fields) == lettershop.MaxFieldErrors {
			break
		}
		path := echo.Cut(k, lettershop.MaxFieldPath)
		if _, ok := b.Fields[path]; !ok {
			b.Fields[path] = echo.Cut(e.Fields[k], lettershop.MaxFieldMessage)
		}
	}
	return &b
}
