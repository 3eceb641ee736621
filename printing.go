package lettershop

import (
	"github.com/lettershop/lettershop/render"
)

// addressPlacements are the values of options.print.addressPlacement.
var addressPlacements = []string{string(render.InsertBlankPage), string(render.TopFirstPage)}
