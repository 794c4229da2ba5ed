/** Keys of a leaderboard entry (spec §2.5 "Leaderboard entry", client-contract §9). */
export const LEADERBOARD_ENTRY_FIELDS = [
  'rank',
  'id',
  'name',
  'status',
  'description',
  'owner_wallet_address',
  'created_at',
  'last_trade_at',
  'total_pnl',
  'pnl_percent',
  'win_rate',
  'trades_count',
  'win_count',
  'loss_count',
  'is_claimed',
] as const;
