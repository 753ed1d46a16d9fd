package incident_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestIncident(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "The paper's incident scenario")
}
