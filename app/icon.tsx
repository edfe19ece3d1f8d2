import { ImageResponse } from "next/og";
import { StudioMark } from "@/lib/site/mark";

export const size = { width: 32, height: 32 };
export const contentType = "image/png";

export default function Icon() {
  return new ImageResponse(<StudioMark size={size.width} />, size);
}
