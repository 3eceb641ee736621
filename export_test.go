package lettershop

import "github.com/lettershop/lettershop/delivery"

// DeliveriesWoken reports whether the engine that posts webhook events was
// woken or started at all.
func DeliveriesWoken(s *Service) bool {
	e, ok := s.deliveries.engine.(*delivery.Engine)
	return !ok || e.Woken() || e.Started()
}
