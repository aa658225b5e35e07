// userRole: what kind of account an address is. Weight 60. For an agent (API wallet)
// it names the master, which is the address to query everything else with.
//
// Tolerant: a role other than the five known ones (docs "Query a user's role"; nktkas/hyperliquid
// src/api/info/_methods/userRole.ts; the Python SDK's recorded mainnet answer {"role":"vault"} in
// tests/cassettes/info_test/test_user_role.yaml) is kept as `{role: "<as sent>"}` and reported once.
// Whoever decides what a key may do from the role must refuse a role it does not know; the answer
// itself is not an error. A known role with a broken payload (an agent without its master) is refused.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut } from "../schemas.js";
import { unknownVariant } from "../tolerant.js";

export const USER_ROLES = ["missing", "user", "vault", "agent", "subAccount"] as const;

export const UserRoleRequest = z.strictObject({
  type: z.literal("userRole"),
  user: Address,
});
export type UserRoleRequest = z.output<typeof UserRoleRequest>;

/** The five roles hlbot knows, each with its payload. */
export const KnownUserRole = z.discriminatedUnion("role", [
  z.looseObject({ role: z.enum(["missing", "user", "vault"]) }),
  z.looseObject({ role: z.literal("agent"), data: z.looseObject({ user: AddressOut }) }),
  z.looseObject({ role: z.literal("subAccount"), data: z.looseObject({ master: AddressOut }) }),
]);
export type KnownUserRole = z.output<typeof KnownUserRole>;

export const UserRoleResponse = z.union([
  KnownUserRole,
  z.looseObject({ role: unknownVariant("role", USER_ROLES) }),
]);
export type UserRoleResponse = z.output<typeof UserRoleResponse>;

/**
 * The answer as one of the known roles (narrowable by `role`), or undefined for a role hlbot does not
 * know, which a caller deciding what a key may do must refuse.
 */
export function knownUserRole(answer: UserRoleResponse): KnownUserRole | undefined {
  return (USER_ROLES as readonly string[]).includes(answer.role) ? (answer as KnownUserRole) : undefined;
}

export const userRoleWeight = infoRequestWeight("userRole");

export const userRoleMethod = defineInfoMethod({
  type: "userRole",
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
