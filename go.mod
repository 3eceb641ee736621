module github.com/lettershop/lettershop

go 1.26.8

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/go-pdf/fpdf v0.9.0
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/oklog/ulid/v2 v2.1.2
	golang.org/x/image v0.47.0
	golang.org/x/net v0.62.0
)

require golang.org/x/text v0.43.0 // indirect
