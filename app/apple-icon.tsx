import { ImageResponse } from "next/og";
import { StudioMark } from "@/lib/site/mark";

export const size = { width: 180, height: 180 };
export const contentType = "image/png";

export default function AppleIcon() {
  return new ImageResponse(<StudioMark size={size.width} />, size);
}
