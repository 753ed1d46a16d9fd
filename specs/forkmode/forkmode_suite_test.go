package forkmode_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestForkMode(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Fork mode")
}
