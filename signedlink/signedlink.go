// Package signedlink signs and opens the signature of a link: a link names
// an object and when it expires, and its signature carries the account the
// link must identify but should not show, and a serial number that makes
// every link different, sealed with AES-GCM.
//
// The nonce is an HMAC-SHA256 of account, object, expiry and serial (a
// synthetic IV), so it never repeats for different contents, and opening a
// signature checks both the GCM tag and that HMAC: a link changed in any
// part (object, expiry, signature) is refused.
//
// The package knows nothing of what a link serves: the parts it signs are
// strings, compared as they are. Links adds the expiry: a lifetime after
// a link is made, in Unix seconds, which the caller compares with its
// clock.
package signedlink

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"sync/atomic"
)

// MaxAccount is the longest account, in bytes, a link carries: Sign
// refuses a longer one (ErrAccountTooLong), whose link Open would refuse.
const MaxAccount = 740

// MaxSignature is the longest signature Open reads, 1035 characters: that
// of a link carrying an account of MaxAccount bytes.
const MaxSignature = ((nonceLen+tagLen+serialLen+MaxAccount)*8 + 5) / 6

// The lengths of a signature's parts: the nonce, the GCM tag and the serial
// number.
const (
	nonceLen  = 12
	tagLen    = 16
	serialLen = 8
)

// ErrAccountTooLong is what Sign returns for an account longer than
// MaxAccount.
var ErrAccountTooLong = errors.New("signedlink: the account is too long for a link")

// label sets the keys of links apart from every other use of the key a
// Signer is made from.
const label = "lettershop download link v1"

// Signer signs links and opens their signatures. It is safe for concurrent
// use.
type Signer struct {
	encKey  []byte
	signKey []byte
	// serial numbers links, so that no two are alike; it starts at random,
	// so that signers sharing a key make different links too.
	serial atomic.Uint64
}

// New returns a Signer whose keys derive from key under a label of their
// own: key may sign other things too (pagination tokens), and none of
// them can pass for a link signature or the other way round. Signers made
// from one key open each other's signatures. Its serial numbers start at a
// point read from random, crypto/rand.Reader when nil; New panics when it
// can not be read.
func New(key []byte, random io.Reader) *Signer {
	link := hmacSum(key, []byte(label))
	s := &Signer{encKey: hmacSum(link, []byte("encrypt")), signKey: hmacSum(link, []byte("sign"))}
	if random == nil {
		random = rand.Reader
	}
	var start [8]byte
	if _, err := io.ReadFull(random, start[:]); err != nil {
		panic("signedlink: no randomness for serial numbers: " + err.Error())
	}
	s.serial.Store(binary.BigEndian.Uint64(start[:]))
	return s
}

// NextSerial returns a serial number for a new link, one after the last.
func (s *Signer) NextSerial() uint64 { return s.serial.Add(1) }

// Sign returns the signature of the link to object id in account, which
// expires at expires, numbered serial: URL-safe base64 without padding. An
// account longer than MaxAccount is ErrAccountTooLong.
func (s *Signer) Sign(account, id, expires string, serial uint64) (string, error) {
	if len(account) > MaxAccount {
		return "", ErrAccountTooLong
	}
	g := s.aead()
	plain := make([]byte, serialLen, serialLen+len(account))
	binary.BigEndian.PutUint64(plain, serial)
	nonce := s.mac(account, id, expires, plain)[:g.NonceSize()]
	plain = append(plain, account...)
	sealed := g.Seal(nonce[:len(nonce):len(nonce)], nonce, plain, aad(id, expires))
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

// Open checks signature against the link's object id and expiry, and
// returns the account it carries; ok is false for a signature that this
// key did not make for that id and expiry.
func (s *Signer) Open(id, expires, signature string) (account string, ok bool) {
	if len(signature) > MaxSignature {
		return "", false
	}
	// Strict: the unused bits of the last character must be zero, so no two
	// signatures decode to the same bytes and any change to one is refused.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(signature)
	if err != nil {
		return "", false
	}
	g := s.aead()
	if len(raw) < g.NonceSize()+g.Overhead() {
		return "", false
	}
	nonce, sealed := raw[:g.NonceSize()], raw[g.NonceSize():]
	plain, err := g.Open(nil, nonce, sealed, aad(id, expires))
	if err != nil || len(plain) < serialLen {
		return "", false
	}
	serial, acct := plain[:serialLen], plain[serialLen:]
	want := s.mac(string(acct), id, expires, serial)[:g.NonceSize()]
	if subtle.ConstantTimeCompare(nonce, want) != 1 {
		return "", false
	}
	return string(acct), true
}

// mac is the HMAC of a link's parts, each length-prefixed so that no two
// different links share an input.
func (s *Signer) mac(account, id, expires string, serial []byte) []byte {
	m := hmac.New(sha256.New, s.signKey)
	for _, p := range []string{account, id, expires, string(serial)} {
		m.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

// aead is made for each link rather than kept: cipher.AEAD does not
// promise that one value may be used from several goroutines at once.
func (s *Signer) aead() cipher.AEAD {
	block, err := aes.NewCipher(s.encKey)
	if err != nil {
		panic("signedlink: key: " + err.Error()) // a 32-byte key always works
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		panic("signedlink: cipher: " + err.Error())
	}
	return g
}

func aad(id, expires string) []byte { return []byte("v1\x00" + id + "\x00" + expires) }

func hmacSum(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}
