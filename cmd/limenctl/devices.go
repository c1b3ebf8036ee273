package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func newDevicesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the devices paired with the web app (limenctl pair), or revoke one",
		Long: `devices lists the browsers paired with limen's web app: yours, or everyone's
for limend's owner. limenctl devices revoke ID removes one at once: its
sessions end, its live queue closes, and its passkey no longer approves.`,
		Example: `  limenctl devices
  limenctl devices --json
  limenctl devices revoke 3f2a9c01b7d4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			resp, err := c.API.ListDevices(ctx, &limenv1.ListDevicesRequest{})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(resp)
			}
			if len(resp.GetDevices()) == 0 {
				fmt.Fprintln(a.out, "no paired devices (limenctl pair pairs one)")
				return nil
			}
			now := time.Now()
			w := a.table()
			fmt.Fprintln(w, "ID\tNAME\tUSER\tPAIRED\tLAST USED")
			for _, d := range resp.GetDevices() {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s ago\t%s ago\n", d.GetId(), d.GetName(), d.GetUser(),
					describe.Age(now.Sub(d.GetCreated().AsTime())), describe.Age(now.Sub(d.GetLastUsed().AsTime())))
			}
			return w.Flush()
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "revoke ID",
		Short: "Remove a paired device at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			resp, err := c.API.RevokeDevice(ctx, &limenv1.RevokeDeviceRequest{Id: args[0]})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(resp)
			}
			fmt.Fprintf(a.out, "device %s (%s, user %s) revoked: its sessions have ended\n", resp.GetDevice().GetId(), resp.GetDevice().GetName(), resp.GetDevice().GetUser())
			return nil
		},
	})
	return cmd
}
