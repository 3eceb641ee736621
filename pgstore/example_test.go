package pgstore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/pgstore"
)

// A Service on PostgreSQL, its tables in a schema of their own (made, and
// migrated, by Open). Several servers may share the database: give each
// the same token key, so that each takes the others' pagination tokens
// and download links.
//
// This example needs a database, so it is compiled but not run: it has no
// Output comment. Point LETTERSHOP_TEST_POSTGRES at one to try it.
func ExampleOpen() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("LETTERSHOP_TEST_POSTGRES"), pgstore.WithSchema("mail"))
	if err != nil {
		panic(err)
	}
	defer st.Close()
	svc := lettershop.New(st, lettershop.WithTokenKey([]byte(os.Getenv("LETTERSHOP_TOKEN_KEY"))))
	defer svc.Close()

	asset, err := svc.CreateAsset(ctx, "acct_1", lettershop.CreateAssetInput{Name: "Welcome letter"})
	if err != nil {
		panic(err)
	}
	fmt.Println(asset.Status)
}
