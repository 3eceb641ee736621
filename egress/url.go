package egress

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CheckURL parses rawURL strictly and checks its host against p
// (CheckHost). It returns the URL, or an *Error of KindBadURL or
// KindRefused saying what is wrong. Taken: an absolute http or https URL
// with a host and any port from 1 to 65535. Refused: another scheme, a
// user name or password before the host (http://example.com@10.0.0.1/ goes
// to 10.0.0.1, not example.com), spaces, control characters and
// backslashes, which URL parsers read in different ways.
func (p Policy) CheckURL(rawURL string) (*url.URL, error) {
	u, perr := parseURL(rawURL)
	if perr != nil {
		return nil, perr
	}
	if _, _, err := p.checkHost(u.Hostname()); err != nil {
		err.URL = u.Redacted()
		return nil, err
	}
	return u, nil
}

// Credentials says why a URL with a user name or password before its host
// (user@host, user:password@host) is refused wherever lettershop takes a
// URL it requests: content to fetch, a variable's externalUrl, a webhook's
// url. The host is what follows the @, whatever comes before it.
const Credentials = "the url has a user name or password before its host (user@host): " +
	"lettershop requests URLs without credentials, and the host is what follows the @"

func parseURL(rawURL string) (*url.URL, *Error) {
	if rawURL == "" {
		return nil, badURL("", "no url is given: want an absolute http or https URL")
	}
	if i := strings.IndexFunc(rawURL, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }); i >= 0 {
		return nil, badURL("", fmt.Sprintf("the url holds %q at byte %d: percent-encode it", rawURL[i], i))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, badURL("", fmt.Sprintf("the url is not a valid URL: %v", unwrapURLError(err)))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return nil, badURL("", "the url must be absolute, beginning http:// or https://")
		}
		return nil, badURL("", fmt.Sprintf("the url's scheme is %q: only http and https are fetched", u.Scheme))
	case u.Opaque != "" || u.Host == "":
		return nil, badURL("", "the url names no host: want http://host/path or https://host/path")
	case u.User != nil:
		return nil, badURL("", Credentials)
	}
	if port := u.Port(); port != "" {
		if !portOK(port) {
			return nil, badURL("", fmt.Sprintf("the url's port %s is not one from 1 to 65535", port))
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, badURL("", "the url has a colon after its host but no port")
	}
	return u, nil
}

// portOK reports whether port, a URL's port as url.URL.Port gives it, is
// one a request can be made to: none, or a number from 1 to 65535.
func portOK(port string) bool {
	if port == "" {
		return true
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
