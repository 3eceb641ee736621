package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lettershop/lettershop/pgstore"
)

// Every secret a connection string can hold is redacted, in both forms.
func TestRedact(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres://db/mail", "postgres://db/mail"},
		{"postgres://u@db/mail", "postgres://u@db/mail"},
		{"postgres://u:s3cret@db/mail?sslmode=verify-full", "postgres://u:xxxxx@db/mail?sslmode=verify-full"},
		{"postgres://u@db/mail?password=s3cret", "postgres://u@db/mail?password=xxxxx"},
		{"postgresql://db/mail?sslmode=require&sslpassword=s3cret", "postgresql://db/mail?sslmode=require&sslpassword=xxxxx"},
		{"postgres://db/mail?pass%77ord=s3cret", "postgres://db/mail?password=xxxxx"},
		{"postgres://db/mail?PASSWORD=s3cret", "postgres://db/mail?PASSWORD=xxxxx"},
		{"postgres://u:s3cret@db:port/mail", "(not shown: it may hold a password)"},
		{"host=db dbname=mail", "host=db dbname=mail"},
		{"host=db password=s3cret dbname=mail", "host=db password=xxxxx dbname=mail"},
		{"host=db password = s3cret", "host=db password = xxxxx"},
		{"host=db password='s3 cret' user=u", "host=db password=xxxxx user=u"},
		{`host=db password='s3\' cret' user=u`, "host=db password=xxxxx user=u"},
		{`host=db password=s3\ cret`, "host=db password=xxxxx"},
		{"host=db sslpassword=s3cret", "host=db sslpassword=xxxxx"},
		{"host=db password='s3 cret", "(not shown: it may hold a password)"},
		{"host=db s3cret", "(not shown: it may hold a password)"},
	} {
		got := pgstore.Redact(tt.in)
		if got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "s3") || strings.Contains(got, "cret") {
			t.Errorf("Redact(%q) = %q holds the secret", tt.in, got)
		}
	}
}

// A connection string Open or CheckDSN cannot parse is named in the error
// without its secrets.
func TestOpenErrorHidesSecrets(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u:s3cret@db:port/mail",
		"postgres://u@db/mail?password=s3cret&pool_max_conns=many",
		"host=db password='s3 cret",
		"host=db password='s3 cret' pool_max_conns=many",
		"host=db password=s3cret port=notaport",
	} {
		for name, err := range map[string]error{
			"CheckDSN": pgstore.CheckDSN(dsn),
			"Open":     openErr(dsn),
		} {
			if err == nil {
				t.Errorf("%s(%q): no error", name, dsn)
				continue
			}
			if msg := err.Error(); strings.Contains(msg, "s3") || strings.Contains(msg, "cret") {
				t.Errorf("%s(%q): error %q holds the secret", name, dsn, msg)
			}
		}
	}
	if err := pgstore.CheckDSN("postgres://u:s3cret@db/mail?sslmode=disable"); err != nil {
		t.Errorf("CheckDSN of a good URL: %v", err)
	}
}

func openErr(dsn string) error {
	st, err := pgstore.Open(context.Background(), dsn)
	if err == nil {
		st.Close()
	}
	return err
}
