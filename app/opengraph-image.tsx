import { ImageResponse } from "next/og";
import { ACCENT, SITE_DESCRIPTION, STUDIO_NAME } from "@/lib/site/brand";

export const alt = `${STUDIO_NAME}: software for ambitious teams`;
export const size = { width: 1200, height: 630 };
export const contentType = "image/png";

/** The card shown when the site is shared (Open Graph and Twitter), drawn at build. */
export default function OpenGraphImage() {
  return new ImageResponse(
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        padding: 80,
        background: "#ffffff",
        color: "#0f172a",
      }}
    >
      <div style={{ display: "flex", fontSize: 44, fontWeight: 700 }}>
        Northwind<span style={{ color: ACCENT, marginLeft: 14 }}>Studio</span>
      </div>
      <div style={{ display: "flex", fontSize: 72, fontWeight: 700, lineHeight: 1.1, maxWidth: 980 }}>
        Software for ambitious teams
      </div>
      <div style={{ display: "flex", fontSize: 32, color: "#475569", maxWidth: 1000 }}>
        {SITE_DESCRIPTION}
      </div>
    </div>,
    size,
  );
}
