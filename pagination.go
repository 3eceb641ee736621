package lettershop

// Page sizes.
const (
	DefaultPageSize = 10
	MaxPageSize     = 100
)

// Page is one page of a list, newest first. NextToken is empty on the last
// page; otherwise passing it back continues the list where this page ended.
type Page[T any] struct {
	Items     []T    `json:"items"`
	NextToken string `json:"nextToken,omitempty"`
}

// PageRequest is the paging part of a list request.
type PageRequest struct {
	// PageSize is 1..100; 0 means the default, 10.
	PageSize int
	// NextToken continues a list; it must come from the same list, with the
	// same filters, in the same account.
	NextToken string
}

// cursor is a validated page request: how many to fetch and where to start.
type cursor struct {
	limit  int
	before string // the last id of the previous page; "" for the first
	scope  string // the walk the token is bound to (pagetoken.Scope)
}

// openPage checks a page request against the walk it must belong to. Problems
// are added to f under pageSize and nextToken.
func (s *Service) openPage(req PageRequest, scope string, f fieldErrors) cursor {
	c := cursor{limit: req.PageSize, scope: scope}
	switch {
	case req.PageSize == 0:
		c.limit = DefaultPageSize
	case req.PageSize < 1 || req.PageSize > MaxPageSize:
		f.add("pageSize", "pageSize must be between 1 and %d, got %d", MaxPageSize, req.PageSize)
	}
	if req.NextToken != "" {
		id, ok := s.pages.Open(req.NextToken, scope)
		if !ok {
			f.add("nextToken", "nextToken is not valid for this list; start again without it")
		}
		c.before = id
	}
	return c
}

// closePage trims a fetch of limit+1 items to a page and mints the token that
// continues after it.
func closePage[T any](s *Service, c cursor, items []T, idOf func(T) string) Page[T] {
	p := Page[T]{Items: items}
	if len(items) > c.limit {
		p.Items = items[:c.limit]
		p.NextToken = s.pages.Sign(c.scope, idOf(p.Items[c.limit-1]))
	}
	if p.Items == nil {
		p.Items = []T{}
	}
	return p
}
