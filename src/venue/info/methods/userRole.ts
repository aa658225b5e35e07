// userRole: what kind of account an address is (reference §3.19). Weight 60. For an agent (API wallet)
// it names the master, which is the address to query everything else with.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut } from "../schemas.js";

export const UserRoleRequest = z.strictObject({
  type: z.literal("userRole"),
  user: Address,
});
export type UserRoleRequest = z.output<typeof UserRoleRequest>;

export const UserRoleResponse = z.discriminatedUnion("role", [
  z.looseObject({ role: z.enum(["missing", "user", "vault"]) }),
  z.looseObject({ role: z.literal("agent"), data: z.looseObject({ user: AddressOut }) }),
  z.looseObject({ role: z.literal("subAccount"), data: z.looseObject({ master: AddressOut }) }),
]);
export type UserRoleResponse = z.output<typeof UserRoleResponse>;

export const userRoleWeight = infoRequestWeight("userRole");

export const userRoleMethod = defineInfoMethod({
  type: "userRole",
  summary: "account kind of an address: missing, user, vault, agent (with master) or subAccount",
  request: UserRoleRequest,
  response: UserRoleResponse,
  weight: userRoleWeight,
  endpoint: "info",
});
export type UserRoleParameters = InfoParams<typeof userRoleMethod>;

export function userRole(
  transport: HttpTransport,
  params: UserRoleParameters,
  signal?: AbortSignal,
): Promise<UserRoleResponse> {
  return runInfoQuery(transport, userRoleMethod, params, signal);
}
