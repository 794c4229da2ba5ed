/** The UTC minute a tick belongs to, `yyyyMMddHHmm`: part of slot-derived job ids. */
export function minuteSlot(date: Date): string {
  return date.toISOString().slice(0, 16).replace(/[-T:]/g, '');
}

/** The instant a minute slot starts (the inverse of `minuteSlot`). */
export function slotTime(slot: string): Date {
  const [y, mo, d, h, mi] = [
    slot.slice(0, 4),
    slot.slice(4, 6),
    slot.slice(6, 8),
    slot.slice(8, 10),
    slot.slice(10, 12),
  ].map(Number);
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!));
}
