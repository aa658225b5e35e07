// userToMultiSigSigners: the signers and threshold of a multi-sig user, or null.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, UInt } from "../schemas.js";

export const UserToMultiSigSignersRequest = z.strictObject({
  type: z.literal("userToMultiSigSigners"),
  user: Address,
});
export type UserToMultiSigSignersRequest = z.output<typeof UserToMultiSigSignersRequest>;

/** `null` for a normal (not multi-sig) user. */
export const UserToMultiSigSignersResponse = z
  .looseObject({
    authorizedUsers: z.array(AddressOut),
    threshold: UInt,
  })
  .nullable();
export type UserToMultiSigSignersResponse = z.output<typeof UserToMultiSigSignersResponse>;

export const userToMultiSigSignersWeight = infoRequestWeight("userToMultiSigSigners");

export const userToMultiSigSignersMethod = defineInfoMethod({
  type: "userToMultiSigSigners",
  request: UserToMultiSigSignersRequest,
  response: UserToMultiSigSignersResponse,
  weight: userToMultiSigSignersWeight,
  endpoint: "info",
});
export type UserToMultiSigSignersParameters = InfoParams<typeof userToMultiSigSignersMethod>;

export function userToMultiSigSigners(
  transport: HttpTransport,
  params: UserToMultiSigSignersParameters,
  signal?: AbortSignal,
): Promise<UserToMultiSigSignersResponse> {
  return runInfoQuery(transport, userToMultiSigSignersMethod, params, signal);
}
