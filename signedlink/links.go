package signedlink

import (
	"strconv"
	"sync"
	"time"
)

// DefaultTTL is how long a link of Links lasts when its TTL is not set.
const DefaultTTL = 15 * time.Minute

// Links makes links that expire a lifetime after they are made, and opens
// them: a link's expiry is a Unix time in seconds, written in decimal and
// rounded up, so a link lasts at least its lifetime. Set Key and TTL before
// the first use, which makes its Signer (New with Key); it is safe for
// concurrent use after.
type Links struct {
	// Key is the key the Signer is made from.
	Key []byte
	// TTL is how long a link lasts; DefaultTTL when zero or below.
	TTL time.Duration

	once   sync.Once
	signer *Signer
}

func (l *Links) init() *Signer {
	l.once.Do(func() {
		if l.TTL <= 0 {
			l.TTL = DefaultTTL
		}
		l.signer = New(l.Key, nil)
	})
	return l.signer
}

// Sign returns the expiry and signature of a new link to object id in
// account, made at now: ErrAccountTooLong for an account longer than
// MaxAccount.
func (l *Links) Sign(account, id string, now time.Time) (expires, signature string, err error) {
	s := l.init()
	exp := now.Add(l.TTL)
	unix := exp.Unix()
	if exp.After(time.Unix(unix, 0)) {
		unix++
	}
	expires = strconv.FormatInt(unix, 10)
	signature, err = s.Sign(account, id, expires, s.NextSerial())
	return expires, signature, err
}

// Open checks a link to object id: its expiry, as Sign wrote it (decimal,
// with no sign nor leading zero), and its signature. It returns the account
// the link carries and when it expires, which the caller compares with its
// clock; ok is false for a link Sign did not make.
func (l *Links) Open(id, expires, signature string) (account string, expiry time.Time, ok bool) {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != expires {
		return "", time.Time{}, false
	}
	account, ok = l.init().Open(id, expires, signature)
	if !ok {
		return "", time.Time{}, false
	}
	return account, time.Unix(exp, 0), true
}
