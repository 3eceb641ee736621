package signedlink_test

import (
	"fmt"

	"github.com/lettershop/lettershop/signedlink"
)

func Example() {
	s := signedlink.New([]byte("a secret key shared by the servers"), nil)
	sig, err := s.Sign("acct_1", "ltr_01abc", "1800000000", s.NextSerial())
	if err != nil {
		panic(err)
	}

	// A server holding the same key opens the signature of the link.
	other := signedlink.New([]byte("a secret key shared by the servers"), nil)
	account, ok := other.Open("ltr_01abc", "1800000000", sig)
	fmt.Println(account, ok)
	// The signature of one link does not open another.
	_, ok = other.Open("ltr_01abc", "1800000001", sig)
	fmt.Println(ok)
	// Output:
	// acct_1 true
	// false
}
