import { ACCENT } from "./brand";

/** The studio's mark, an "N" on the accent colour, for icons drawn with `next/og`. */
export function StudioMark({ size }: { size: number }) {
  return (
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        alignItems: "center",
        justifyContent: "center",
        background: ACCENT,
        color: "white",
        fontSize: Math.round(size * 0.62),
        fontWeight: 700,
        borderRadius: Math.round(size * 0.18),
      }}
    >
      N
    </div>
  );
}
