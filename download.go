package lettershop

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Download links.
//
// A link names the letter ({id}.pdf) and when it expires; its signature
// carries the account, which the link must identify but should not show,
// and a serial number that makes every link different, sealed with AES-GCM.
// The nonce is an HMAC-SHA256 of account, letter, expiry and serial (a
// synthetic IV), so it never repeats for different contents, and opening a
// link checks both the GCM tag and that HMAC: a link changed in any part
// (letter, expiry, signature) is refused. Every link to one letter serves
// the same bytes, rendered once (renderLetter's cache).

// maxSignature bounds the signature parameter read: an account id of a few
// hundred bytes at most (740), with the link's serial number.
const maxSignature = 1035

// DownloadURL returns a fresh signed link to the letter's PDF, good for the
// download link lifetime (DefaultDownloadTTL unless WithDownloadTTL):
// {base}/files/letters/{id}.pdf?expires=...&signature=... The link needs no
// API key; OpenDownload serves it.
func (s *Service) DownloadURL(ctx context.Context, account, id string) (string, error) {
	ctx = s.readClocks(ctx)
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return "", err
	}
	r := s.renders()
	// Rounded up to the second, so a link lasts at least the lifetime.
	exp := s.now(account).Add(r.ttl)
	expires := exp.Unix()
	if exp.After(time.Unix(expires, 0)) {
		expires++
	}
	e := strconv.FormatInt(expires, 10)
	serial := binary.BigEndian.AppendUint64(nil, r.serial.Add(1))
	return s.baseURL + "/files/letters/" + l.ID + ".pdf?expires=" + e + "&signature=" + r.sign(account, l.ID, e, serial), nil
}

// OpenDownload serves a signed link made by DownloadURL: file is the last
// path element ({id}.pdf), expires and signature its query parameters. It
// returns the rendered PDF. An expired or altered link is a CodeForbidden
// error; a link to a letter that no longer exists, CodeNotFound.
func (s *Service) OpenDownload(ctx context.Context, file, expires, signature string) ([]byte, error) {
	id, ok := strings.CutSuffix(file, ".pdf")
	if !ok || !ValidID(letterPrefix, id) {
		return nil, errLinkInvalid
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != expires {
		return nil, errLinkInvalid
	}
	r := s.renders()
	account, ok := r.open(id, expires, signature)
	if !ok {
		return nil, errLinkInvalid
	}
	ctx = s.readClocks(ctx)
	if !s.now(account).Before(time.Unix(exp, 0)) {
		return nil, errorf(CodeForbidden, "the download link has expired: ask for a new one at /letters/%s/download", id)
	}
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return s.renderObserved(ctx, account, l)
}

var errLinkInvalid = errorf(CodeForbidden, "the download link is not valid")

// linkSerial is the length of a link's serial number.
const linkSerial = 8

// linkMAC is the HMAC of a link's parts, each length-prefixed so that no
// two different links share an input.
func (r *renderState) linkMAC(account, id, expires string, serial []byte) []byte {
	m := hmac.New(sha256.New, r.signKey)
	for _, p := range []string{account, id, expires, string(serial)} {
		m.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

func (r *renderState) aead() cipher.AEAD {
	block, err := aes.NewCipher(r.encKey)
	if err != nil {
		panic("lettershop: link key: " + err.Error()) // a 32-byte key always works
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		panic("lettershop: link cipher: " + err.Error())
	}
	return g
}

func linkAAD(id, expires string) []byte { return []byte("v1\x00" + id + "\x00" + expires) }

// sign returns the signature parameter of a link.
func (r *renderState) sign(account, id, expires string, serial []byte) string {
	g := r.aead()
	nonce := r.linkMAC(account, id, expires, serial)[:g.NonceSize()]
	plain := append(slices.Clip(serial), account...)
	sealed := g.Seal(nonce[:len(nonce):len(nonce)], nonce, plain, linkAAD(id, expires))
	return base64.RawURLEncoding.EncodeToString(sealed)
}

// open checks a signature against the link's letter and expiry and returns
// the account it carries.
func (r *renderState) open(id, expires, signature string) (string, bool) {
	if len(signature) > maxSignature {
		return "", false
	}
	// Strict: the unused bits of the last character must be zero, so no two
	// signatures decode to the same bytes and any change to one is refused.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(signature)
	if err != nil {
		return "", false
	}
	g := r.aead()
	if len(raw) < g.NonceSize()+g.Overhead() {
		return "", false
	}
	nonce, sealed := raw[:g.NonceSize()], raw[g.NonceSize():]
	plain, err := g.Open(nil, nonce, sealed, linkAAD(id, expires))
	if err != nil || len(plain) < linkSerial {
		return "", false
	}
	serial, account := plain[:linkSerial], plain[linkSerial:]
	want := r.linkMAC(string(account), id, expires, serial)[:g.NonceSize()]
	if subtle.ConstantTimeCompare(nonce, want) != 1 {
		return "", false
	}
	return string(account), true
}

func hmacSum(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}
