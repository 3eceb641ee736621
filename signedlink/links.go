package signedlink

import (
	"strconv"
	"time"
)

// DefaultTTL is how long a link of Links lasts when its TTL is not set.
const DefaultTTL = 15 * time.Minute

// Links makes links that expire a lifetime after they are made, and opens
// them: a link's expiry is a Unix time in seconds, written in decimal and
// rounded up, so a link lasts at least its lifetime. Make one with
// NewLinks; it is a small value, its copies share its Signer, and it is
// safe for concurrent use.
type Links struct {
	// TTL is how long a link lasts; DefaultTTL when zero or below. Set
	// it, if at all, before the first link is made.
	TTL time.Duration

	signer *Signer
}

// NewLinks returns the Links that sign with key (its Signer is New with
// key) links that last ttl.
func NewLinks(key []byte, ttl time.Duration) Links {
	return Links{TTL: ttl, signer: New(key, nil)}
}

// Sign returns the expiry and signature of a new link to object id in
// account, made at now: ErrAccountTooLong for an account longer than
// MaxAccount.
func (l Links) Sign(account, id string, now time.Time) (expires, signature string, err error) {
	ttl := l.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	exp := now.Add(ttl)
	unix := exp.Unix()
	if exp.After(time.Unix(unix, 0)) {
		unix++
	}
	expires = strconv.FormatInt(unix, 10)
	signature, err = l.signer.Sign(account, id, expires, l.signer.NextSerial())
	return expires, signature, err
}

// Open checks a link to object id: its expiry, as Sign wrote it (decimal,
// with no sign nor leading zero), and its signature. It returns the account
// the link carries and when it expires, which the caller compares with its
// clock; ok is false for a link Sign did not make.
func (l Links) Open(id, expires, signature string) (account string, expiry time.Time, ok bool) {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != expires {
		return "", time.Time{}, false
	}
	account, ok = l.signer.Open(id, expires, signature)
	if !ok {
		return "", time.Time{}, false
	}
	return account, time.Unix(exp, 0), true
}
