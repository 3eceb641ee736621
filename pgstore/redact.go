package pgstore

import (
	"errors"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// redactedSecret stands in for a secret Redact removes.
const redactedSecret = "xxxxx"

// notShown is what Redact answers for a connection string it cannot take
// apart with certainty but that may hold a secret.
const notShown = "(not shown: it may hold a password)"

// secretParams are the connection parameters that hold secrets, in either
// form of connection string.
var secretParams = map[string]bool{"password": true, "sslpassword": true}

// Redact returns dsn fit to print or log: every secret it holds, in every
// form Open accepts, is replaced by xxxxx. In a URL those are the password
// of the user part and the password and sslpassword query parameters; in a
// key=value string, the password and sslpassword values, quoted or not. A
// string that cannot be taken apart and may hold a secret is not shown at
// all.
func Redact(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return redactURL(dsn)
	}
	if out, ok := redactKeywordValue(dsn); ok {
		return out
	}
	return notShown
}

func redactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return notShown
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), redactedSecret)
		}
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return notShown
		}
		changed := false
		for k := range q {
			if secretParams[strings.ToLower(k)] {
				q[k] = []string{redactedSecret}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if u.Fragment != "" {
		// Nothing pgx reads, and nothing a reader needs.
		u.Fragment = ""
	}
	return u.String()
}

// redactKeywordValue redacts a key=value connection string the way pgx
// reads it: keys, optional spaces, '=', optional spaces, and a value that
// is either quoted with single quotes (a backslash escapes the next
// character) or runs to the next space (a backslash escapes there too).
// ok is false for a string it cannot read, which may then hide a secret
// anywhere.
func redactKeywordValue(s string) (out string, ok bool) {
	var b strings.Builder
	i := 0
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	for {
		start := i
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		b.WriteString(s[start:i])
		if i == len(s) {
			return b.String(), true
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return "", false
		}
		key := strings.TrimRight(s[i:i+eq], " \t\n\r\f\v")
		if key == "" || strings.ContainsAny(key, " \t\n\r\f\v'\\") {
			return "", false
		}
		b.WriteString(s[i : i+eq+1])
		i += eq + 1
		start = i
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		b.WriteString(s[start:i])
		start = i
		if i < len(s) && s[i] == '\'' {
			i++
			for {
				if i >= len(s) {
					return "", false // unterminated quote
				}
				if s[i] == '\\' {
					i += 2
					continue
				}
				if s[i] == '\'' {
					i++
					break
				}
				i++
			}
		} else {
			for i < len(s) && !isSpace(s[i]) {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i > len(s) {
				return "", false // a trailing backslash
			}
		}
		if secretParams[strings.ToLower(key)] {
			b.WriteString(redactedSecret)
		} else {
			b.WriteString(s[start:i])
		}
	}
}

// parseError reports a connection string Open could not parse without
// echoing it: pgx's own message quotes the string, and a parse error of a
// URL quotes it whole, secrets and all. Unwrap still reaches pgx's error.
type parseError struct {
	dsn string
	err error
}

func (e *parseError) Error() string {
	msg := "pgstore: open: cannot parse the connection string " + Redact(e.dsn)
	// pgx says what is wrong after the string it quotes: "cannot parse
	// `...`: what". Keep what, without any secret it may quote.
	what := e.err.Error()
	if i := strings.LastIndex(what, "`: "); strings.HasPrefix(what, "cannot parse `") && i >= 0 {
		what = what[i+len("`: "):]
	} else if inner := errors.Unwrap(e.err); inner != nil {
		what = inner.Error()
	} else {
		what = ""
	}
	if what = scrub(what, e.dsn); what != "" && !strings.Contains(what, "://") {
		msg += ": " + what
	}
	return msg
}

func (e *parseError) Unwrap() error { return e.err }

// scrub removes from text every secret Redact would remove from dsn, for
// messages that may quote a piece of it.
func scrub(text, dsn string) string {
	for _, s := range secretsOf(dsn) {
		if s != "" {
			text = strings.ReplaceAll(text, s, redactedSecret)
		}
	}
	return text
}

// secretsOf returns the raw spellings of the secrets in dsn, as far as they
// can be found.
func secretsOf(dsn string) []string {
	var out []string
	if rest, ok := strings.CutPrefix(dsn, "postgres://"); ok {
		dsn = rest
	} else if rest, ok := strings.CutPrefix(dsn, "postgresql://"); ok {
		dsn = rest
	}
	if i := strings.IndexAny(dsn, "@/"); i >= 0 && dsn[i] == '@' {
		if _, pw, ok := strings.Cut(dsn[:i], ":"); ok {
			out = append(out, pw)
			if d, err := url.PathUnescape(pw); err == nil {
				out = append(out, d)
			}
		}
	}
	for _, f := range strings.FieldsFunc(dsn, func(r rune) bool { return r == '&' || r == '?' || r == ' ' }) {
		k, v, ok := strings.Cut(f, "=")
		if ok && secretParams[strings.ToLower(strings.TrimSpace(k))] {
			v = strings.Trim(strings.TrimSpace(v), "'")
			out = append(out, v)
			if d, err := url.QueryUnescape(v); err == nil {
				out = append(out, d)
			}
		}
	}
	return out
}

// CheckDSN reports whether Open can parse dsn, without connecting. Its error,
// like Open's, never quotes a secret of dsn.
func CheckDSN(dsn string) error {
	if _, err := pgxpool.ParseConfig(dsn); err != nil {
		return &parseError{dsn: dsn, err: err}
	}
	return nil
}
