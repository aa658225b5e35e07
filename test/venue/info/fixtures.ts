// Wire-format answers of every info query, in the shapes the venue documents (its info API pages). Values are
// illustrative; shapes and types are the point. Each export is a function so tests can mutate copies.
export const USER = "0x5ac99df645f3414876c816caa18b2d234024b487";
export const OTHER = "0x11af2b93dcb3568b7bf2b6bd6182d260a9495728";
export const VALIDATOR = "0xb8f45222a3246a2b0104696a1df26842007c5bc5";
export const TOKEN_ID = "0x0d01dc56dcaaca66ad901c959b4011ec";
export const TX_HASH = "0x4de9f1f5d912c23d8fbb0411f01bfe0000eb9f3ccb3fec747cb96e75e8944b06";
export const ZERO_HASH = `0x${"0".repeat(64)}`;

export const tokenDetails = () => ({
  name: "TEST",
  maxSupply: "1852229076.12716007",
  totalSupply: "851681534.05516005",
  circulatingSupply: "851681534.05516005",
  szDecimals: 0,
  weiDecimals: 5,
  midPx: "3.2049",
  markPx: "3.2025",
  prevDayPx: "3.2025",
  genesis: {
    userBalances: [["0x0000000000000000000000000000000000000001", "1000000000.0"]],
    existingTokenBalances: [[1, "0.0"]],
    blacklistUsers: [] as string[],
  } as Record<string, unknown> | null,
  deployer: "0x0000000000000000000000000000000000000001" as string | null,
  deployGas: "100.0" as string | null,
  deployTime: "2024-06-05T10:50:59.434" as string | null,
  seededUsdc: "0.0",
  nonCirculatingUserBalances: [["0xffffffffffffffffffffffffffffffffffffffff", "1000000000.0"]],
  futureEmissions: "0.0",
});

export const referral = () => ({
  referredBy: { referrer: USER, code: "TESTNET" } as Record<string, unknown> | null,
  cumVlm: "149428030.6628420055",
  unclaimedRewards: "11.047361",
  claimedRewards: "22.743781",
  builderRewards: "0.027802",
  referrerState: {
    stage: "ready",
    data: {
      code: "TEST",
      nReferrals: 1,
      referralStates: [
        {
          cumVlm: "960652.017122",
          cumRewardedFeesSinceReferred: "196.838825",
          cumFeesRewardedToReferrer: "19.683748",
          timeJoined: 1679425029416,
          user: OTHER,
          tokenToState: [
            [
              0,
              {
                cumVlm: "960652.017122",
                cumRewardedFeesSinceReferred: "196.838825",
                cumFeesRewardedToReferrer: "19.683748",
              },
            ],
          ],
        },
      ],
    },
  } as Record<string, unknown>,
  rewardHistory: [] as unknown[],
  tokenToState: [
    [
      0,
      {
        cumVlm: "149428030.6628420055",
        unclaimedRewards: "11.047361",
        claimedRewards: "22.743781",
        builderRewards: "0.027802",
      },
    ],
  ],
});

export const spotClearinghouseState = () => ({
  balances: [
    { coin: "USDC", token: 0, total: "14.625485", hold: "0.0", entryNtl: "0.0" },
    {
      coin: "HYPE",
      token: 150,
      total: "2000.0",
      hold: "0.0",
      entryNtl: "1234.56",
      spotHold: "0.0",
      ltv: "0.5",
      borrowed: "0.0",
      supplied: "0.0",
    },
    { coin: "+12", total: "3.0", hold: "0.0", entryNtl: "1.5" },
    { coin: "o7", total: "-1.0", hold: "-0.5", entryNtl: "0.0" },
  ] as Array<Record<string, unknown>>,
  evmEscrows: [{ coin: "HYPE", token: 150, total: "1.0" }],
  portfolioMarginEnabled: true,
  portfolioMarginRatio: "0.12",
  tokenToPortfolioBorrowRatio: [[0, "0.0"]],
  tokenToPortfolioSupplyRatio: [[0, "0.0"]],
  tokenToAvailableAfterMaintenance: [[0, "929.412213"]],
});

export const delegatorHistory = () => [
  { time: 1751382300000, hash: TX_HASH, delta: { withdrawal: { amount: "3.0", phase: "initiated" } } },
  { time: 1751382250000, hash: TX_HASH, delta: { withdrawal: { amount: "2.0", phase: "finalized" } } },
  {
    time: 1751382238782,
    hash: TX_HASH,
    delta: { delegate: { validator: VALIDATOR, amount: "89968.0", isUndelegate: false } },
  },
  {
    time: 1751382238000,
    hash: TX_HASH,
    delta: { delegate: { validator: VALIDATOR, amount: "1.0", isUndelegate: true } },
  },
  { time: 1751382217852, hash: TX_HASH, delta: { cDeposit: { amount: "89968.0" } } },
];

const stats = () => [
  ["day", { uptimeFraction: "1.0", predictedApr: "0.0215", nSamples: 1440 }],
  ["week", { uptimeFraction: "0.999", predictedApr: "0.0216", nSamples: 10080 }],
  ["month", { uptimeFraction: "0.998", predictedApr: "0.0214", nSamples: 43200 }],
];

export const validatorSummary = () => ({
  validator: VALIDATOR,
  signer: OTHER,
  name: "ValiDAO",
  description: "a validator",
  nRecentBlocks: 2,
  stake: 508149744592386 as number | bigint,
  isJailed: false,
  unjailableAfter: null as number | null,
  isActive: true,
  commission: "0.04",
  stats: stats() as unknown[],
});

const marginSummary = () => ({
  accountValue: "29.78001",
  totalNtlPos: "0.0",
  totalRawUsd: "29.78001",
  totalMarginUsed: "0.0",
});

export const subAccount = () => ({
  name: "Test",
  subAccountUser: "0x035605fc2f24d65300227189025e90a0d947f16c",
  master: "0x8c967e73e6b15087c42a10d344cff4c96d877f1d",
  dexToClearinghouseState: [
    [
      "",
      {
        marginSummary: marginSummary(),
        crossMarginSummary: marginSummary(),
        crossMaintenanceMarginUsed: "0.0",
        withdrawable: "29.78001",
        assetPositions: [
          {
            type: "oneWay",
            position: {
              coin: "BTC",
              szi: "-0.01",
              leverage: { type: "cross", value: 20 },
              entryPx: "60000.0",
            },
          },
        ],
        time: 1733968369395,
      },
    ],
  ] as unknown[],
  spotState: { balances: [{ coin: "USDC", token: 0, total: "0.22", hold: "0.0", entryNtl: "0.0" }] },
  abstraction: "portfolioMargin" as string | undefined,
});

export const txDetails = () => ({
  type: "txDetails",
  tx: {
    action: { type: "twapCancel", a: 0, t: 12345 },
    block: 123456789,
    error: null as string | null,
    hash: TX_HASH,
    time: 1752000000000,
    user: USER,
  },
});

export const spotMeta = () => ({
  tokens: [
    {
      name: "USDC",
      szDecimals: 8,
      weiDecimals: 8,
      index: 0,
      tokenId: "0x6d1e7cde53ba9467b783cb7c530ce054",
      isCanonical: true,
      evmContract: null,
      fullName: null,
      deployerTradingFeeShare: "0.0",
    },
    {
      name: "HYPE",
      szDecimals: 2,
      weiDecimals: 8,
      index: 150,
      tokenId: TOKEN_ID,
      isCanonical: false,
      evmContract: { address: "0x2222222222222222222222222222222222222222", evm_extra_wei_decimals: 10 },
      fullName: "Hyperliquid",
      deployerTradingFeeShare: "0.0",
    },
  ],
  universe: [
    { name: "PURR/USDC", tokens: [1, 0], index: 0, isCanonical: true },
    { name: "@107", tokens: [150, 0], index: 107, isCanonical: false },
  ],
});

export const spotAssetCtx = () => ({
  coin: "@107",
  prevDayPx: "37.5",
  dayNtlVlm: "102345678.12",
  markPx: "38.1",
  midPx: "38.105" as string | null,
  circulatingSupply: "333000000.0",
  totalSupply: "999000000.0",
  dayBaseVlm: "2700000.0",
});

export const twapEntry = () => ({
  time: 1754000000,
  state: {
    coin: "SOL",
    user: USER,
    side: "B",
    sz: "1.0",
    executedSz: "0.5",
    executedNtl: "80.0",
    minutes: 30,
    reduceOnly: false,
    randomize: false,
    timestamp: 1753999000000,
    trigger: null as Record<string, unknown> | null | undefined,
    stopPx: null as string | null | undefined,
  },
  status: { status: "activated" } as Record<string, unknown>,
  twapId: 12345 as number | undefined,
});

export const twapSliceFill = () => ({
  fill: {
    coin: "SOL",
    px: "159.4",
    sz: "0.05",
    side: "B",
    time: 1754000030000,
    startPosition: "0.0",
    dir: "Open Long",
    closedPnl: "0.0",
    hash: ZERO_HASH,
    oid: 123456789,
    crossed: true,
    fee: "0.0036",
    tid: 987654321,
    feeToken: "USDC",
    twapId: 12345 as number | null,
  } as Record<string, unknown>,
  twapId: 12345,
});

export const userFees = () => ({
  dailyUserVlm: [{ date: "2025-05-23", userCross: "0.0", userAdd: "0.0", exchange: "2852367.077073" }],
  feeSchedule: {
    cross: "0.00045",
    add: "0.00015",
    spotCross: "0.0007",
    spotAdd: "0.0004",
    tiers: {
      vip: [
        { ntlCutoff: "5000000.0", cross: "0.0004", add: "0.00012", spotCross: "0.0006", spotAdd: "0.0003" },
      ],
      mm: [{ makerFractionCutoff: "0.005", add: "-0.00001" }],
    },
    referralDiscount: "0.04",
    stakingDiscountTiers: [
      { bpsOfMaxSupply: "0.0", discount: "0.0" },
      { bpsOfMaxSupply: "0.0001", discount: "0.05" },
    ],
  },
  userCrossRate: "0.000315",
  userAddRate: "-0.000105",
  userSpotCrossRate: "0.00049",
  userSpotAddRate: "0.00028",
  activeReferralDiscount: "0.0",
  trial: null,
  feeTrialEscrow: "0.0",
  nextTrialAvailableTimestamp: null,
  stakingLink: { type: "tradingUser", stakingUser: OTHER } as Record<string, unknown> | null,
  activeStakingDiscount: { bpsOfMaxSupply: "0.0", discount: "0.0" },
});
