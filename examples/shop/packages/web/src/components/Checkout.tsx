export function Checkout({ onPay }: { onPay: () => void }) {
  return `<button onclick="${String(onPay)}">Pay</button>`;
}
